/**
 * Whether JSON.parse keeps a number token's value: decided on the token's digits, as JSON Schema
 * counts integers, not on the double JSON.parse rounds it to.
 */

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
  // At most 15 digits in all: below 2^53-1 without counting.
  if (digits.length + scale < 16) return { integer: true, safe: true };
  // digits × 10^scale: more than 16 digits in all is beyond 2^53-1 (9007199254740991, 16 digits).
  if (digits.length + scale > 16) return { integer: true, safe: false };
  return { integer: true, safe: BigInt(digits) * 10n ** BigInt(scale) <= BigInt(Number.MAX_SAFE_INTEGER) };
}

const PLAIN_INTEGER = /^-?\d+(?:\.0+)?$/;

/** Whether JSON.parse changes the value of a number token into an integer (see exactInteger). */
export function changedByParse(token: string): boolean {
  if (!NUMBER_PARTS.test(token)) return false;
  const value = Number(token);
  // Most numbers: no integer either way, or an integer a double holds exactly (`3`, `3.0`).
  if (Number.isFinite(value) && !Number.isInteger(value)) return false;
  if (Number.isSafeInteger(value) && PLAIN_INTEGER.test(token)) return false;
  const exact = exactInteger(token);
  return exact.integer ? !exact.safe : Number.isInteger(value);
}
