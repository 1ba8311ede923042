import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { SPEC_PATH } from './load-spec.js';

const ROOT = dirname(SPEC_PATH);

/** Where `npm run docs` (contract-kit docs) writes the page, and where the server looks for it. */
export const DOCS_PATH = join(ROOT, 'build', 'docs', 'index.html');

/** contract-kit's command line, from its sources: its docs section of contract-kit.config.ts gives the template. */
const KIT_MAIN = join(ROOT, 'packages', 'contract-kit', 'src', 'cli', 'main.ts');

/** tsx's loader, to run the kit's sources; absent from a production install, as Redocly is. */
function tsxLoader(): string | undefined {
  try {
    return import.meta.resolve('tsx');
  } catch {
    return undefined;
  }
}

/** Whether this installation can render the docs: Redocly and tsx are development dependencies. */
export function canBuildDocs(): boolean {
  return existsSync(join(ROOT, 'node_modules', '@redocly', 'cli', 'package.json')) && existsSync(KIT_MAIN) && tsxLoader() !== undefined;
}

/** Renders the page into `output` as `npm run docs` does (contract-kit docs, its compressed copies beside it). */
export function buildDocs(output: string = DOCS_PATH): Promise<void> {
  const loader = tsxLoader();
  if (loader === undefined) return Promise.reject(new Error('tsx is not installed (a development dependency); run npm run docs'));
  const args = ['--import', loader, KIT_MAIN, 'docs', '--spec', SPEC_PATH, '--output', output];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`contract-kit docs failed (exit ${code}):\n${stderr}`))));
  });
}
