import type { ErrorDetail } from '../errors/api-error.js';

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const STRING = /"(?:[^"\\]|\\.)*"/y;

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
 * - a key that appears twice in one object (`{"categoryId":3,"categoryId":4}`): JSON.parse keeps
 *   the last, so what was validated is not what the client may believe it sent (RFC 8259, 4);
 * - a number JSON.parse would change: an integer written with a fraction or an exponent (`5.0`,
 *   `1e3`, `4503599627370496.5`, which rounds to an integer) or an integer beyond 2^53-1. Every
 *   number of the contract is an integer, so such a token is always a mistake worth refusing
 *   rather than rounding.
 * The text must be valid JSON (check it with JSON.parse first). Strings are skipped.
 */
export function strictJsonProblems(text: string): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
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
        top.key = key;
        top.expectKey = false;
      }
    } else if (c === '-' || (c >= '0' && c <= '9')) {
      NUMBER.lastIndex = i;
      const token = NUMBER.exec(text)![0];
      i += token.length - 1;
      const value = Number(token);
      const plainInteger = /^-?\d+$/.test(token);
      if ((!plainInteger && Number.isInteger(value)) || (plainInteger && !Number.isSafeInteger(value))) {
        problems.push({ field: here(), message: `${token} cannot be taken exactly; write integers as plain digits up to 9007199254740991` });
      }
    }
  }
  return problems;
}
