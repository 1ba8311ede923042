#!/usr/bin/env node
/**
 * `contract-kit COMMAND`: the commands a project that serves a contract runs (see HELP).
 */
import { ContractError } from '../contract/document.js';
import { CommandError, UsageError } from './command-line.js';
import { checkBreaking, CHECK_BREAKING_HELP } from './check-breaking.js';
import { conform, CONFORM_HELP } from './conform.js';
import { docs, DOCS_HELP, lint, LINT_HELP, mock, MOCK_HELP } from './documents.js';
import { generate, GENERATE_HELP } from './generate.js';
import { init, INIT_HELP } from './init.js';

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

const COMMANDS: Record<string, { run: (args: string[]) => Promise<number>; help: string }> = {
  init: { run: init, help: INIT_HELP },
  generate: { run: generate, help: GENERATE_HELP },
  lint: { run: lint, help: LINT_HELP },
  docs: { run: docs, help: DOCS_HELP },
  mock: { run: mock, help: MOCK_HELP },
  'check-breaking': { run: checkBreaking, help: CHECK_BREAKING_HELP },
  conform: { run: conform, help: CONFORM_HELP },
};

async function main(args: string[]): Promise<number> {
  const [name, ...rest] = args;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(HELP);
    return name === undefined ? 2 : 0;
  }
  const command = COMMANDS[name];
  if (!command) {
    process.stderr.write(`contract-kit: there is no command "${name}"\n\n${HELP}`);
    return 2;
  }
  try {
    return await command.run(rest);
  } catch (error) {
    if (error instanceof CommandError) {
      process.stderr.write(`contract-kit ${name}: ${error.message}\n${error instanceof UsageError ? `\n${command.help}` : ''}`);
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
