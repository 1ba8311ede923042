import type { OperationInfo } from './operations.js';
import type { ProblemDetail } from 'contract-kit';

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
 * problem per field: a query parameter given more than once, an integer parameter not written in
 * plain decimal digits (a validator's type coercion would read `0x14`, `1e1`, `20.0` or ` 20` as
 * numbers) or beyond ±(2^53-1), the integers a double holds exactly. `query` holds a string, or an array of them for a repeated name; `pathParams` are
 * percent-decoded. The service and the mock refuse the same requests with it.
 */
export function parameterProblems(
  op: Pick<OperationInfo, 'queryParameters' | 'integerQueryParameters' | 'integerPathParameters'>,
  query: Record<string, unknown>,
  pathParams: Record<string, string>,
): ProblemDetail[] {
  const details: ProblemDetail[] = [];
  for (const name of op.queryParameters) {
    if (Array.isArray(query[name])) details.push({ field: `query.${name}`, message: 'must be given at most once' });
  }
  for (const name of op.integerQueryParameters) checkInteger(details, 'query', name, query[name]);
  for (const name of op.integerPathParameters) checkInteger(details, 'path', name, pathParams[name]);
  return details;
}
