import { parseArgs, type ParseArgsConfig } from 'node:util';

type Options = NonNullable<ParseArgsConfig['options']>;

/** A command that cannot do its work (a revision or a file it cannot read): its message, exit code 2. */
export class CommandError extends Error {}

/** A command's usage error: printed with its help, exit code 2. */
export class UsageError extends CommandError {}

/**
 * Parses a command's arguments strictly; `--help`/`-h` prints `help` and returns null. An unknown
 * or malformed option throws a UsageError.
 */
export function parseCommand<const T extends Options>(help: string, args: string[], options: T) {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      options: { ...options, help: { type: 'boolean', short: 'h', default: false } },
      strict: true,
      allowPositionals: true,
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if ((parsed.values as { help?: boolean }).help) {
    process.stdout.write(help);
    return null;
  }
  return parsed;
}

/** `--port`'s value as a port number, or a UsageError. */
export function portOf(raw: string): number {
  if (!/^(0|[1-9][0-9]{0,4})$/.test(raw) || Number(raw) > 65535)
    throw new UsageError(`--port must be a whole number from 0 to 65535, got "${raw}"`);
  return Number(raw);
}
