import type { Operation } from '../contract/operations.js';
import type { ProblemDetail } from './problems.js';

const DECIMAL_INTEGER = /^-?(0|[1-9][0-9]*)$/;
const SAFE_RANGE = `must be at most ${Number.MAX_SAFE_INTEGER} in size`;

/** Adds to `details` what is wrong with an integer parameter's text, if anything. */
function checkInteger(details: ProblemDetail[], where: 'query' | 'path', name: string, value: unknown): void {
  if (typeof value !== 'string') return;
  if (!DECIMAL_INTEGER.test(value)) details.push({ field: `${where}.${name}`, message: 'must be an integer written in decimal digits' });
  // Read as a double, 10^400 is Infinity, which no JSON Schema bound refuses.
  else if (!Number.isSafeInteger(Number(value))) details.push({ field: `${where}.${name}`, message: SAFE_RANGE });
}

/**
 * What a strict reading of the contract refuses in a request before its schemas are checked, one
 * problem per field: a query parameter that is not an array given more than once, an integer
 * parameter not written in plain decimal digits (a validator's type coercion would read `0x14`,
 * `1e1`, `20.0` or ` 20` as numbers) or beyond ±(2^53-1), the integers a double holds exactly.
 * `query` holds a string, or an array of them for a repeated name; `pathParams` are
 * percent-decoded.
 */
export function parameterProblems(op: Operation, query: Record<string, unknown>, pathParams: Record<string, string>): ProblemDetail[] {
  const details: ProblemDetail[] = [];
  for (const p of op.parameters) {
    if (p.in === 'query') {
      const value = query[p.name];
      if (Array.isArray(value) && p.type !== 'array') details.push({ field: `query.${p.name}`, message: 'must be given at most once' });
      else if (p.type === 'integer') checkInteger(details, 'query', p.name, value);
    } else if (p.in === 'path' && p.type === 'integer') checkInteger(details, 'path', p.name, pathParams[p.name]);
  }
  return details;
}
