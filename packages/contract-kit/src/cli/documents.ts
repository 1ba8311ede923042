import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadContract } from '../contract/load-contract.js';
import { parseCommand, portOf } from './command-line.js';
import { mockDocument } from './mock-document.js';
import { binOf, redocly, runTool } from './tools.js';

export const LINT_HELP = `Usage: contract-kit lint [--spec FILE]

Lints the contract with Redocly CLI: with the project's redocly.yaml when it has one, otherwise
with Redocly's recommended rules. Exits 1 when an error is found.

Options:
  --spec FILE   The contract (default openapi.yaml).
  -h, --help    Show this help.
`;

export const DOCS_HELP = `Usage: contract-kit docs [--spec FILE] [--output FILE]

Renders the contract's reference with Redocly CLI (build-docs) into one HTML file that needs no
network: Redoc's scripts are inlined.

Options:
  --spec FILE     The contract (default openapi.yaml).
  --output FILE   Where to write it (default build/docs/index.html).
  -h, --help      Show this help.
`;

export const MOCK_HELP = `Usage: contract-kit mock [--spec FILE] [--port N] [--host HOST]

Serves a mock of the contract with Prism at the same paths as the server: under the path of
each of the contract's servers (/v1/... for https://api.example.com/v1). Each operation
answers with its examples (or values made from its schemas, valid for them), with the
Deprecation, Sunset and Link headers of a deprecated operation, and requests are checked
against the contract. It stops with the command (Ctrl+C, or SIGTERM to it).

Options:
  --spec FILE   The contract (default openapi.yaml).
  --port N      The port (default 4010).
  --host HOST   The address to listen on (default 127.0.0.1).
  -h, --help    Show this help.
`;

/** The kit's lint rules, for a project without a redocly.yaml of its own. */
const KIT_REDOCLY = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'redocly.kit.yaml');

/** `contract-kit lint`. */
export async function lint(args: string[], cwd = process.cwd()): Promise<number> {
  const parsed = parseCommand(LINT_HELP, args, { spec: { type: 'string', default: 'openapi.yaml' } });
  if (!parsed) return 0;
  const config = existsSync(join(cwd, 'redocly.yaml')) ? [] : ['--config', KIT_REDOCLY];
  return redocly(['lint', resolve(cwd, parsed.values.spec), ...config]);
}

/** `contract-kit docs`. */
export async function docs(args: string[], cwd = process.cwd()): Promise<number> {
  const parsed = parseCommand(DOCS_HELP, args, {
    spec: { type: 'string', default: 'openapi.yaml' },
    output: { type: 'string', default: 'build/docs/index.html' },
  });
  if (!parsed) return 0;
  const { spec, output } = parsed.values;
  return redocly(['build-docs', resolve(cwd, spec), '--inlineBundle', '--output', resolve(cwd, output)]);
}

/** `contract-kit mock`. */
export async function mock(args: string[], cwd = process.cwd()): Promise<number> {
  const parsed = parseCommand(MOCK_HELP, args, {
    spec: { type: 'string', default: 'openapi.yaml' },
    port: { type: 'string', default: '4010' },
    host: { type: 'string', default: '127.0.0.1' },
  });
  if (!parsed) return 0;
  const { spec, port, host } = parsed.values;
  const portNumber = portOf(port);
  const doc = await loadContract(resolve(cwd, spec), spec);
  const dir = mkdtempSync(join(tmpdir(), 'contract-kit-mock-'));
  try {
    const served = join(dir, 'contract.json');
    writeFileSync(served, JSON.stringify(mockDocument(doc, `http://${host}:${portNumber}`)));
    return await runTool(binOf('@stoplight/prism-cli', 'prism'), ['mock', served, '--port', String(portNumber), '--host', host]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
