import type { ProblemDetail } from './problems.js';

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const NUMBER_PARTS = /^-?(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/**
 * Whether a JSON number token's exact decimal value is an integer, and whether it lies within
 * ±(2^53-1), the integers a double holds exactly. Decided on the digits, never on the rounded
 * double: `3.0` and `0.3e1` are the integer 3; `4503599627370496.5` is not an integer, though
 * JSON.parse rounds it to one.
 */
function exactInteger(token: string): { integer: boolean; safe: boolean } {
  const [, whole, fraction = '', exponent = '0'] = NUMBER_PARTS.exec(token)!;
  let digits = `${whole}${fraction}`.replace(/^0+/, '');
  if (digits === '') return { integer: true, safe: true };
  let scale = Number(exponent) - fraction.length;
  // Trailing zeros counted by hand: /0+$/ is quadratic on a long run of zeros (regex-safety.test.ts).
  let trailing = 0;
  while (digits[digits.length - 1 - trailing] === '0') trailing++;
  digits = digits.slice(0, digits.length - trailing);
  scale += trailing;
  if (scale < 0) return { integer: false, safe: false };
  // digits × 10^scale: more than 16 digits in all is beyond 2^53-1 (9007199254740991, 16 digits).
  if (digits.length + scale > 16) return { integer: true, safe: false };
  return { integer: true, safe: BigInt(digits) * 10n ** BigInt(scale) <= BigInt(Number.MAX_SAFE_INTEGER) };
}
const STRING = /"(?:[^"\\]|\\.)*"/y;

/**
 * Properties one object of a body may have, unless told otherwise. A body with thousands of
 * unknown ones is refused here, as a whole, before the validator would name each of them (1,500
 * keys cost it over 10 ms of CPU and an error body of 1,500 details).
 */
export const MAX_PROPERTIES = 256;

interface Frame {
  kind: 'object' | 'array';
  /** Where this object or array is (`body`, `body.tags`). */
  field: string;
  /** Object: the keys seen so far, decoded; the current key; whether a key comes next. */
  keys: Set<string>;
  key: string;
  expectKey: boolean;
  /** Array: the index of the current element. */
  index: number;
}

/**
 * What JSON.parse would take silently from a valid JSON text but a strict API refuses, one entry
 * per field:
 * - a key that appears twice in one object (`{"id":3,"id":4}`): JSON.parse keeps
 *   the last, so what was validated is not what the client may believe it sent (RFC 8259, 4);
 * - a number JSON.parse would change into an integer: one that is not an integer but rounds to
 *   one (`4503599627370496.5`, `1.0000000000000001`), or an integer beyond 2^53-1. Any exact
 *   spelling of an integer in range is taken as that integer (`3`, `3.0`, `1e2`, `0.3e1`), as
 *   JSON Schema counts it.
 * - an object with more than `maxProperties` properties.
 * The text must be valid JSON (check it with JSON.parse first). Strings are skipped.
 */
function strictJsonProblems(text: string, maxProperties: number): ProblemDetail[] {
  const problems: ProblemDetail[] = [];
  const stack: Frame[] = [];
  const here = (): string => {
    const top = stack.at(-1);
    if (!top) return 'body';
    return top.kind === 'object' ? `${top.field}.${top.key}` : `${top.field}.${top.index}`;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    const top = stack.at(-1);
    if (c === '{' || c === '[') {
      stack.push({ kind: c === '{' ? 'object' : 'array', field: here(), keys: new Set(), key: '', expectKey: c === '{', index: 0 });
    } else if (c === '}' || c === ']') {
      stack.pop();
    } else if (c === ',') {
      if (top?.kind === 'object') top.expectKey = true;
      else if (top) top.index++;
    } else if (c === '"') {
      STRING.lastIndex = i;
      const token = STRING.exec(text)![0];
      i += token.length - 1;
      if (top?.kind === 'object' && top.expectKey) {
        const key = JSON.parse(token) as string;
        if (top.keys.has(key)) problems.push({ field: `${top.field}.${key}`, message: 'is given more than once' });
        top.keys.add(key);
        if (top.keys.size === maxProperties + 1) problems.push({ field: top.field, message: `has more than ${maxProperties} properties` });
        top.key = key;
        top.expectKey = false;
      }
    } else if (c === '-' || (c >= '0' && c <= '9')) {
      NUMBER.lastIndex = i;
      const token = NUMBER.exec(text)![0];
      i += token.length - 1;
      const exact = exactInteger(token);
      if (exact.integer ? !exact.safe : Number.isInteger(Number(token))) {
        problems.push({
          field: here(),
          message: `${token} cannot be taken exactly: integers go up to 9007199254740991, and a number that is not an integer must not round to one`,
        });
      }
    }
  }
  return problems;
}

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** A JSON body refused before its schema is checked, and why. */
export interface StrictJsonRefusal {
  message: string;
  details: ProblemDetail[];
}

/**
 * The value of the bytes of an application/json body, or why they are refused before its schema
 * is checked: empty, not UTF-8, not JSON, or JSON that JSON.parse would take with a silent change
 * ({@link strictJsonProblems}; at most 10 of them).
 */
export function parseStrictJson(bytes: Uint8Array, maxProperties = MAX_PROPERTIES): { value: unknown } | { refusal: StrictJsonRefusal } {
  if (bytes.length === 0)
    return { refusal: { message: 'The request body is missing.', details: [{ field: 'body', message: 'is required' }] } };
  let text: string;
  try {
    text = UTF8.decode(bytes);
  } catch {
    return { refusal: { message: 'The request body is not valid UTF-8.', details: [{ field: 'body', message: 'is not valid UTF-8' }] } };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { refusal: { message: 'The request body is not valid JSON.', details: [{ field: 'body', message: 'is not valid JSON' }] } };
  }
  const problems = strictJsonProblems(text, maxProperties);
  return problems.length > 0 ? { refusal: { message: 'The request is invalid; see details.', details: problems.slice(0, 10) } } : { value };
}
