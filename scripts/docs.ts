/** `npm run docs`: renders openapi.yaml as one self-contained HTML page (works offline). */
import { statSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { parseCommandLine } from '../src/shared/command-line.js';
import { buildDocs, DOCS_PATH } from '../src/contract/reference-docs.js';

const HELP = `Usage: npm run docs [-- --output FILE]

Renders openapi.yaml with Redocly (Redoc, scripts inlined) into one HTML file that needs no
network: open it from disk or publish it as it is. The server serves the same page at /docs,
compressed as this command writes it beside the page (FILE.br, FILE.gz).

Options:
  --output FILE  Where to write the page (default: build/docs/index.html).
  -h, --help     Show this help.
`;

const { values } = parseCommandLine(HELP, { output: { type: 'string', short: 'o' } });
const output = resolve(values.output ?? DOCS_PATH);
buildDocs(output, (line, stream) => (stream === 'err' ? process.stderr : process.stdout).write(`${line}\n`)).then(
  () => {
    const size = Math.round(statSync(output).size / 1024);
    process.stdout.write(`Docs written to ${relative(process.cwd(), output) || output} (${size} KiB, no network needed).\n`);
  },
  (error: unknown) => {
    process.stderr.write(`${(error as Error).message}\n`);
    process.exit(1);
  },
);
