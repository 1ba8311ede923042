/** The bounds a whole number must keep, both included; without `max`, up to 2^53-1. */
export interface WholeNumberRange {
  min: number;
  max?: number;
}

/** The ports a server can listen on; 0 asks the system for a free one. */
export const PORT_RANGE = { min: 0, max: 65535 } as const satisfies WholeNumberRange;

/**
 * The whole number `raw` spells (decimal digits only: no sign, point, exponent or hexadecimal),
 * when it lies in `range`. Otherwise throws a RangeError whose message says what it must be
 * ("must be a whole number from 0 to 65535"), for the caller to put after the name of what it
 * parses: an environment variable, a command-line option.
 */
export function parseWholeNumber(raw: string, { min, max }: WholeNumberRange): number {
  const value = Number(raw);
  const expected = max === undefined ? `of at least ${min}` : `from ${min} to ${max}`;
  if (!/^\d+$/.test(raw) || value < min || (max !== undefined && value > max)) throw new RangeError(`must be a whole number ${expected}`);
  if (!Number.isSafeInteger(value)) throw new RangeError(`must be a whole number ${expected}, at most ${Number.MAX_SAFE_INTEGER}`);
  return value;
}
