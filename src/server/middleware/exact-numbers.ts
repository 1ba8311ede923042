import { InvalidRequestError } from '../errors/invalid-request-error.js';

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/**
 * The number tokens of a JSON text that JSON.parse would change silently, each with the object
 * key it is the value of (the last key before it, which is exact for flat bodies): integers written
 * with a fraction or an exponent (`5.0`, `1e3`, `4503599627370496.5` rounds to an integer) and
 * integers beyond 2^53-1. Strings are skipped. Every number of the contract is an integer, so
 * such a token is always a mistake worth refusing rather than rounding.
 */
export function inexactNumbers(text: string): { token: string; key: string | null }[] {
  const found: { token: string; key: string | null }[] = [];
  let lastString = '';
  let key: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      const start = i;
      for (i++; i < text.length && text.charCodeAt(i) !== 34; i++) if (text.charCodeAt(i) === 92 /* \ */) i++;
      lastString = text.slice(start, i + 1);
      continue;
    }
    if (c === 58 /* : */) {
      try {
        key = JSON.parse(lastString) as string;
      } catch {
        key = null;
      }
      continue;
    }
    if (c === 44 /* , */ || c === 123 /* { */ || c === 91 /* [ */) key = c === 44 ? key : null;
    if (c === 45 /* - */ || (c >= 48 && c <= 57)) {
      NUMBER.lastIndex = i;
      const match = NUMBER.exec(text);
      if (!match) continue;
      const token = match[0];
      const value = Number(token);
      const plainInteger = /^-?\d+$/.test(token);
      if ((!plainInteger && Number.isInteger(value)) || (plainInteger && !Number.isSafeInteger(value))) found.push({ token, key });
      i += token.length - 1;
    }
  }
  return found;
}

/** body-parser `verify` hook: refuses a body with inexact numbers before it is parsed. */
export function verifyExactNumbers(_req: unknown, _res: unknown, buffer: Buffer): void {
  const numbers = inexactNumbers(buffer.toString('utf8'));
  if (numbers.length > 0) {
    throw new InvalidRequestError(
      numbers.slice(0, 10).map(({ token, key }) => ({
        field: key === null ? 'body' : `body.${key}`,
        message: `${token} cannot be taken exactly; write integers as plain digits up to 9007199254740991`,
      })),
    );
  }
}
