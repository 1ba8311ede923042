#!/usr/bin/env node
/**
 * `contract-kit COMMAND`: the commands a project that serves a contract runs (see HELP).
 */
import { ContractError } from '../contract/document.js';
import { CommandError, UsageError } from './command-line.js';
import { requireTools, TOOLS_OF } from './tools.js';

const HELP = `Usage: contract-kit COMMAND [options]

Commands (each takes --spec FILE, default openapi.yaml, and --help):
  init             set up a project that has a contract to serve it
  generate         write the contract's types, the handler map, a typed client, and a stub per operation
  lint             lint the contract (Redocly)
  docs             render the contract's reference as one HTML file (Redocly)
  mock             serve a mock of the contract (Prism)
  check-breaking   list the changes since an earlier version that would break a client
  conform          check a running server against the contract, case by case

Run contract-kit COMMAND --help for a command's options.
`;

interface Command {
  run: (args: string[]) => Promise<number>;
  help: string;
}

/**
 * Each command, loaded when it runs: a command's module imports its tools (openapi-typescript,
 * fast-check...), devDependencies of the project, which init runs before they are installed.
 */
const COMMANDS: Record<string, () => Promise<Command>> = {
  init: () => import('./init.js').then((m) => ({ run: m.init, help: m.INIT_HELP })),
  generate: () => import('./generate.js').then((m) => ({ run: m.generate, help: m.GENERATE_HELP })),
  lint: () => import('./documents.js').then((m) => ({ run: m.lint, help: m.LINT_HELP })),
  docs: () => import('./docs.js').then((m) => ({ run: m.docs, help: m.DOCS_HELP })),
  mock: () => import('./documents.js').then((m) => ({ run: m.mock, help: m.MOCK_HELP })),
  'check-breaking': () => import('./check-breaking.js').then((m) => ({ run: m.checkBreaking, help: m.CHECK_BREAKING_HELP })),
  conform: () => import('./conform.js').then((m) => ({ run: m.conform, help: m.CONFORM_HELP })),
};

async function main(args: string[]): Promise<number> {
  const [name, ...rest] = args;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(HELP);
    return name === undefined ? 2 : 0;
  }
  const load = COMMANDS[name];
  if (!load) {
    process.stderr.write(`contract-kit: there is no command "${name}"\n\n${HELP}`);
    return 2;
  }
  let command: Command | undefined;
  try {
    requireTools(TOOLS_OF[name] ?? []);
    command = await load();
    return await command.run(rest);
  } catch (error) {
    if (error instanceof CommandError) {
      process.stderr.write(`contract-kit ${name}: ${error.message}\n${error instanceof UsageError && command ? `\n${command.help}` : ''}`);
      return 2;
    }
    if (error instanceof ContractError) {
      process.stderr.write(`contract-kit ${name}: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`contract-kit: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  },
);
