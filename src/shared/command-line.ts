import { parseArgs, type ParseArgsConfig } from 'node:util';

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

/** The value of `--name` as a whole number of at least `min`; otherwise a usage error (exit 2). */
export function wholeNumberOption(help: string, name: string, raw: string, min: number): number {
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < min) failUsage(help, `--${name} must be a whole number of at least ${min}, got "${raw}"`);
  return value;
}

/** Prints a usage error and the help text, then exits 2. */
export function failUsage(help: string, message: string): never {
  process.stderr.write(`${message}\n\n${help}`);
  process.exit(2);
}

/**
 * How the user ran this command, for usage lines and hints: `node server.js` or `node keys.js`
 * from the release (npm run release bundles the entry points under those names), else the npm
 * script given, such as `npm run keys --`.
 */
export function invokedAs(npmScript: string, script: string | undefined = process.argv[1]): string {
  const file = script?.split(/[\\/]/).pop() ?? '';
  return file === 'server.js' || file === 'keys.js' ? `node ${file}` : npmScript;
}
