import { basename, relative } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { parseWholeNumber, PORT_RANGE } from './whole-number.js';

type Options = NonNullable<ParseArgsConfig['options']>;

/** What {@link parseCommandLine} returns: parseArgs's result for `options` and `--help`. */
export type ParsedCommandLine<T extends Options> = ReturnType<
  typeof parseArgs<{
    args: string[];
    options: T & { help: { type: 'boolean'; short: 'h'; default: false } };
    strict: true;
    allowPositionals: boolean;
  }>
>;

/**
 * Parses a command's arguments strictly. `--help`/`-h` prints `help` and exits 0; an unknown or
 * malformed option prints what is wrong, then `help`, and exits 2.
 */
export function parseCommandLine<const T extends Options>(
  help: string,
  options: T,
  { args = process.argv.slice(2), allowPositionals = false }: { args?: string[]; allowPositionals?: boolean } = {},
): ParsedCommandLine<T> {
  try {
    const parsed = parseArgs({
      args,
      options: { ...options, help: { type: 'boolean', short: 'h', default: false } },
      strict: true,
      allowPositionals,
    });
    if ((parsed.values as { help?: boolean }).help) {
      process.stdout.write(help);
      process.exit(0);
    }
    return parsed;
  } catch (error) {
    return failUsage(help, (error as Error).message);
  }
}

/**
 * The value of `--name` as a whole number from `min` (to `max`, when given); otherwise a usage
 * error (exit 2) such as `--port must be a whole number from 0 to 65535, got "80a"`.
 */
export function wholeNumberOption(help: string, name: string, raw: string, min: number, max?: number): number {
  try {
    return parseWholeNumber(raw, { min, max });
  } catch (error) {
    return failUsage(help, `--${name} ${(error as Error).message}, got "${raw}"`);
  }
}

/** The value of `--port` (or `--name`) as a port to listen on, 0 for a free one; otherwise a usage error. */
export function portOption(help: string, raw: string, name = 'port'): number {
  return wholeNumberOption(help, name, raw, PORT_RANGE.min, PORT_RANGE.max);
}

/** Prints a usage error and the help text, then exits 2. */
export function failUsage(help: string, message: string): never {
  process.stderr.write(`${message}\n\n${help}`);
  process.exit(2);
}

/**
 * How the user runs this command, for usage lines and hints: from the release (npm run release
 * bundles the entry points as server.js and keys.js), `node` and the entry's path from where the
 * command was started (`node keys.js` in the release's folder, `node release/keys.js` from the
 * repository); else the npm script given, such as `npm run keys --`.
 */
export function invokedAs(npmScript: string, script: string | undefined = process.argv[1], cwd: string = process.cwd()): string {
  if (script === undefined || !['server.js', 'keys.js'].includes(basename(script))) return npmScript;
  const path = relative(cwd, script);
  return `node ${/^[\w./-]+$/.test(path) ? path : `'${path.replaceAll("'", "'\\''")}'`}`;
}
