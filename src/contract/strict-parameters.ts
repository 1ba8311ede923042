import { resolveRef, type OpenApiDocument } from './load-spec.js';
import type { OperationInfo } from './operations.js';
import type { StrictJsonProblem } from './strict-json.js';

const DECIMAL_INTEGER = /^-?(0|[1-9][0-9]*)$/;
const SAFE_RANGE = `must be at most ${Number.MAX_SAFE_INTEGER} in size`;

interface IntegerParameter {
  in: 'query' | 'path';
  name: string;
}

/** The parameters of one operation that {@link parameterProblems} checks. */
export interface StrictParameters {
  /** Every query parameter the operation declares. */
  queryNames: string[];
  /** Its query and path parameters whose schema is an integer. */
  integers: IntegerParameter[];
}

/** Which parameters of `op` (path-level ones included) {@link parameterProblems} checks. */
export function strictParametersOf(doc: OpenApiDocument, op: OperationInfo): StrictParameters {
  const raw = doc.paths[op.path]?.[op.method] as { parameters?: unknown[] } | undefined;
  const pathLevel = (doc.paths[op.path]?.parameters as unknown[] | undefined) ?? [];
  const integers: IntegerParameter[] = [];
  const queryNames: string[] = [];
  for (const p of [...pathLevel, ...(raw?.parameters ?? [])]) {
    const parameter = resolveRef<{ in: string; name: string; schema?: unknown }>(doc, p);
    if (parameter.in === 'query') queryNames.push(parameter.name);
    const schema = resolveRef<{ type?: unknown }>(doc, parameter.schema);
    if ((parameter.in === 'query' || parameter.in === 'path') && schema?.type === 'integer') {
      integers.push({ in: parameter.in, name: parameter.name });
    }
  }
  return { queryNames, integers };
}

/**
 * What a strict reading of the contract refuses in a request before its schemas are checked, one
 * problem per field: a query parameter given more than once, an integer parameter not written in
 * plain decimal digits (a validator's type coercion would read `0x14`, `1e1`, `20.0` or ` 20` as
 * numbers) or beyond ±(2^53-1), the integers a double holds exactly. `query` holds a string, or an array of them for a repeated name; `pathParams` are
 * percent-decoded. The service and the mock refuse the same requests with it.
 */
export function parameterProblems(
  strict: StrictParameters,
  query: Record<string, unknown>,
  pathParams: Record<string, string>,
): StrictJsonProblem[] {
  const details: StrictJsonProblem[] = [];
  for (const name of strict.queryNames) {
    if (Array.isArray(query[name])) details.push({ field: `query.${name}`, message: 'must be given at most once' });
  }
  for (const p of strict.integers) {
    const value = p.in === 'query' ? query[p.name] : pathParams[p.name];
    if (typeof value !== 'string') continue;
    if (!DECIMAL_INTEGER.test(value)) details.push({ field: `${p.in}.${p.name}`, message: 'must be an integer written in decimal digits' });
    // Read as a double, 10^400 is Infinity, which no JSON Schema bound refuses.
    else if (!Number.isSafeInteger(Number(value))) details.push({ field: `${p.in}.${p.name}`, message: SAFE_RANGE });
  }
  return details;
}
