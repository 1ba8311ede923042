import { spawn } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { SPEC_PATH } from '../spec/load-spec.js';

/** Where `npm run docs` writes the page, and where the server looks for it. */
export const DOCS_PATH = join(dirname(SPEC_PATH), 'build', 'docs', 'index.html');

const REDOCLY = join(dirname(SPEC_PATH), 'node_modules', '.bin', 'redocly');

/** Whether this installation can render the docs (Redocly is a development dependency). */
export function canBuildDocs(): boolean {
  return existsSync(REDOCLY);
}

/**
 * Renders the contract with Redocly into one HTML file with Redoc's scripts inlined, so it
 * works offline. `onOutput` receives Redocly's lines, without its boxed notices about its own
 * releases.
 */
export function buildDocs(output: string = DOCS_PATH, onOutput: (line: string, stream: 'out' | 'err') => void = () => {}): Promise<void> {
  mkdirSync(dirname(output), { recursive: true });
  return new Promise((resolve, reject) => {
    const child = spawn(
      REDOCLY,
      ['build-docs', SPEC_PATH, '--inlineBundle', '--output', output, '--config', join(dirname(SPEC_PATH), 'redocly.yaml')],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let errors = '';
    const relay = (stream: 'out' | 'err') => (chunk: Buffer) => {
      for (const line of chunk.toString().split('\n')) {
        if (!line.trim() || /^\s*[║╔╚]/.test(line)) continue;
        if (stream === 'err') errors += `${line}\n`;
        onOutput(line, stream);
      }
    };
    child.stdout.on('data', relay('out'));
    child.stderr.on('data', relay('err'));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`redocly build-docs failed (exit ${code}):\n${errors}`))));
  });
}
