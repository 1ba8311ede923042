import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { SPEC_PATH } from './load-spec.js';
import { hasRedocly, runRedocly } from './redocly.js';

/** Where `npm run docs` writes the page, and where the server looks for it. */
export const DOCS_PATH = join(dirname(SPEC_PATH), 'build', 'docs', 'index.html');

/** Whether this installation can render the docs (Redocly is a development dependency). */
export const canBuildDocs = hasRedocly;

/**
 * Renders the contract with Redocly into one HTML file with Redoc's scripts inlined, so it
 * works offline. `onOutput` receives Redocly's lines, without its boxed notices about its own
 * releases.
 */
export async function buildDocs(
  output: string = DOCS_PATH,
  onOutput: (line: string, stream: 'out' | 'err') => void = () => {},
): Promise<void> {
  mkdirSync(dirname(output), { recursive: true });
  const run = await runRedocly(
    ['build-docs', SPEC_PATH, '--inlineBundle', '--output', output, '--config', join(dirname(SPEC_PATH), 'redocly.yaml')],
    { onLine: onOutput },
  );
  if (run.code !== 0) throw new Error(`redocly build-docs failed (exit ${run.code}):\n${run.stderr}`);
}
