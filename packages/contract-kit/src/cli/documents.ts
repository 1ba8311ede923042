import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadContract } from '../contract/load-contract.js';
import { CommandError, parseCommand, portOf } from './command-line.js';
import { loadConfig, type KitConfig } from './config.js';
import type { MockConfig } from '../mock/mock-config.js';
import { createMock } from '../mock/mock-server.js';
import { serve } from '../serve/serve.js';
import { redocly } from './tools.js';

export const LINT_HELP = `Usage: contract-kit lint [--spec FILE]

Lints the contract with Redocly CLI: with the project's redocly.yaml when it has one, otherwise
with Redocly's recommended rules. Exits 1 when an error is found.

Options:
  --spec FILE   The contract (default openapi.yaml).
  -h, --help    Show this help.
`;

export const MOCK_HELP = `Usage: contract-kit mock [--spec FILE] [--port N] [--host HOST] [--dynamic] [--config FILE] [--verbose]

Serves a mock of the contract at the same paths as the server: under the path of each of the
contract's servers (/v1/... for https://api.example.com/v1). Requests go through the kit's own
contract server, so the mock routes, checks and refuses them as a server of the kit does (any
credential a security scheme asks for is taken); each operation then answers what Prism makes of
its responses: its examples (where one is missing, or its schema refuses it, a value made from
the schema), or with --dynamic values Prism makes from the schemas. A request's Prefer header
(code=404, example=name) picks the answer, as Prism reads it. Error answers and the Deprecation,
Sunset and Link headers of a deprecated operation are the server's. The \`mock\` section of the
project's contract-kit.config.{js,mjs,ts} adds the server's options (errors, body limits, steps),
middleware, headers on every answer and the example a request naming none gets (see the README).
It prints a line per request as its client got it, and stops with the command (Ctrl+C, SIGTERM or
SIGHUP to it).

Options:
  --spec FILE     The contract (default openapi.yaml).
  --port N        The port (default 4010).
  --host HOST     The address to listen on (default 127.0.0.1).
  --dynamic       Answer with values made from the schemas, not the examples.
  --config FILE   The configuration (default contract-kit.config.{js,mjs,ts} in this folder, if any).
  --verbose       Give the reason of each refusal on its line.
  -h, --help      Show this help.
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

/** `contract-kit mock`. */
export async function mock(args: string[], cwd = process.cwd()): Promise<number> {
  const parsed = parseCommand(MOCK_HELP, args, {
    spec: { type: 'string', default: 'openapi.yaml' },
    port: { type: 'string', default: '4010' },
    host: { type: 'string', default: '127.0.0.1' },
    dynamic: { type: 'boolean', default: false },
    config: { type: 'string' },
    verbose: { type: 'boolean', default: false },
  });
  if (!parsed) return 0;
  const { spec, port, host, dynamic, verbose } = parsed.values;
  const portNumber = portOf(port);
  const config = mockConfigOf(await loadConfig(cwd, parsed.values.config));
  const contract = await loadContract(resolve(cwd, spec), spec);
  const warnings: string[] = [];
  const server = { ...config.server, onWarning: (message: string) => warnings.push(message) };
  const log = (line: string) => process.stdout.write(`${line}\n`);
  const served = await createMock({ ...config, contract, label: spec, dynamic, server, log, verbose });
  for (const warning of warnings) process.stderr.write(`${warning}\n`);
  // A port it cannot listen on (in use) ends the command, and Prism with it.
  const listening = serve(served.app, {
    port: portNumber,
    host,
    bodyLimitBytes: config.server?.bodyLimitBytes,
    signals: ['SIGTERM', 'SIGINT', 'SIGHUP'],
    onStop: () => served.close(),
  });
  const { origin } = await listening.catch(async (error: unknown) => {
    await served.close();
    throw error;
  });
  const paths = served.kit.basePaths.map((base) => `${origin}${base}`).join(', ');
  const answers = dynamic ? 'values made from the schemas' : "the contract's examples";
  log(`Mock of ${spec} listening on ${paths} (${answers}, by Prism)\nPress Ctrl+C to stop.`);
  return new Promise<number>(() => undefined);
}

/** The configuration's `mock` section, checked for what the command calls. */
function mockConfigOf(config: KitConfig): MockConfig {
  const section: unknown = config.mock ?? {};
  if (typeof section !== 'object' || section === null || Array.isArray(section))
    throw new CommandError("the configuration's mock is not an object (mock: { server: { … }, headers() { … } })");
  for (const hook of ['headers', 'example'] as const) {
    const value = (section as Record<string, unknown>)[hook];
    if (value !== undefined && typeof value !== 'function') throw new CommandError(`the configuration's mock.${hook} is not a function`);
  }
  return section;
}
