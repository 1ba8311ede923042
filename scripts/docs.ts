/** `npm run docs`: renders openapi.yaml as one self-contained HTML page (works offline). */
import { spawn } from 'node:child_process';
import { mkdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { parseCommandLine } from '../src/cli/parse-command-line.js';
import { SPEC_PATH } from '../src/spec/load-spec.js';

const HELP = `Usage: npm run docs [-- --output FILE]

Renders openapi.yaml with Redocly (Redoc, scripts inlined) into one HTML file that needs no
network: open it from disk or publish it as it is.

Options:
  --output FILE  Where to write the page (default: build/docs/index.html).
  -h, --help     Show this help.
`;

const { values } = parseCommandLine(HELP, { output: { type: 'string', short: 'o' } });

const root = dirname(SPEC_PATH);
const output = resolve(values.output ?? join(root, 'build', 'docs', 'index.html'));
mkdirSync(dirname(output), { recursive: true });
const child = spawn(
  join(root, 'node_modules', '.bin', 'redocly'),
  ['build-docs', SPEC_PATH, '--inlineBundle', '--output', output, '--config', join(root, 'redocly.yaml')],
  { stdio: ['ignore', 'pipe', 'pipe'] },
);
// Redocly prints boxed notices about its own future releases; they say nothing about this page.
const relay = (chunk: Buffer, to: NodeJS.WriteStream) => {
  const lines = chunk.toString().split('\n').filter((l) => !/^\s*[║╔╚]/.test(l));
  const text = lines.join('\n').replace(/\n{3,}/g, '\n\n');
  if (text.trim()) to.write(text.endsWith('\n') ? text : `${text}\n`);
};
child.stdout.on('data', (c: Buffer) => relay(c, process.stdout));
child.stderr.on('data', (c: Buffer) => relay(c, process.stderr));
child.on('close', (code) => {
  if (code !== 0) {
    process.stderr.write(`redocly build-docs failed (exit ${code})\n`);
    process.exit(code ?? 1);
  }
  const size = Math.round(statSync(output).size / 1024);
  process.stdout.write(`Docs written to ${relative(process.cwd(), output) || output} (${size} KiB, no network needed).\n`);
});
