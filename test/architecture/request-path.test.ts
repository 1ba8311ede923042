// docs/architecture.md's "Where a request goes" is the map a newcomer reads first: it must name the steps
// createApp gives Express, in the order it gives them, each with the file it lives in.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/run.js';
import { pipelineSteps, requestSteps } from './request-steps.js';

const APP = 'src/service/http/app.ts';

/**
 * The steps docs/architecture.md lists under `app.ts` in its "Where a request goes" block: each line
 * indented by two spaces starts with the file (relative to app.ts's folder) and the name app.ts
 * uses; lines indented further say where a step leads.
 */
function readmeSteps(readme: string): string[] {
  const section = readme.split(/^## Where a request goes$/m)[1];
  const block = section?.split('```')[1];
  if (!block) throw new Error('docs/architecture.md has no code block under "## Where a request goes"');
  const lines = block.split('\n');
  const appLine = lines.findIndex((line) => line.split(/\s+/)[0] === APP);
  if (appLine < 0) throw new Error(`the request path in docs/architecture.md has no line for ${APP}`);
  const steps: string[] = [];
  for (const line of lines.slice(appLine + 1)) {
    if (line.startsWith('    ')) continue; // what a step leads to (a handler, the store), not a step of app.ts
    if (!line.startsWith('  ')) break;
    const [file, name] = line.trim().split(/\s+/);
    steps.push(`${located(file ?? '')} ${name}`);
  }
  return steps;
}

/** A step's file as the request path names it: from the root for contract-kit's, else from app.ts's folder. */
const located = (file: string) => (file.startsWith('packages/') ? file : join(dirname(APP), file));

/** The steps of each operation, as the block after the request path lists them: `file name` on each line. */
function readmePipeline(readme: string): string[] {
  const block = readme.split(/^## Where a request goes$/m)[1]?.split('```')[3];
  if (!block) throw new Error('docs/architecture.md has no second code block under "## Where a request goes"');
  return block
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [file, name] = line.trim().split(/\s+/);
      return `${located(file ?? '')} ${name}`;
    });
}

describe('the request path of docs/architecture.md', () => {
  it(`lists the steps createApp (${APP}) runs, in its order, each with its file`, () => {
    const fromApp = requestSteps(ROOT, APP).map((s) => `${s.file} ${s.name}`);
    expect(fromApp.length).toBeGreaterThan(8);
    expect(readmeSteps(readFileSync(join(ROOT, 'docs', 'architecture.md'), 'utf8'))).toEqual(fromApp);
  });

  it(`lists the steps of each operation, in the order ${APP} gives them to contract-kit, each with its file`, () => {
    const fromApp = pipelineSteps(ROOT, APP).map((s) => `${s.file} ${s.name}`);
    expect(fromApp.length).toBeGreaterThan(10);
    expect(readmePipeline(readFileSync(join(ROOT, 'docs', 'architecture.md'), 'utf8'))).toEqual(fromApp);
  });
});
