import type { RequestHandler } from 'express';
import { resolveRef, type OpenApiDocument } from '../../../contract/load-spec.js';
import type { OperationInfo } from '../../../contract/operations.js';
import { InvalidRequestError } from '../errors/invalid-request-error.js';
import { perOperation } from '../per-operation.js';
import type { ErrorDetail } from '../errors/api-error.js';
import { localsOf } from './locals.js';

const DECIMAL_INTEGER = /^-?(0|[1-9][0-9]*)$/;

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
 * What {@link strictParameters} refuses in a request, one detail per field: a query parameter
 * given more than once, an integer parameter not written in plain decimal digits. `query` holds
 * a string, or an array of them for a repeated name; `pathParams` are percent-decoded. The mock
 * (src/toolkit/mock/mock-proxy.ts) refuses the same requests with it.
 */
export function parameterProblems(
  strict: StrictParameters,
  query: Record<string, unknown>,
  pathParams: Record<string, string>,
): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  for (const name of strict.queryNames) {
    if (Array.isArray(query[name])) details.push({ field: `query.${name}`, message: 'must be given at most once' });
  }
  for (const p of strict.integers) {
    const value = p.in === 'query' ? query[p.name] : pathParams[p.name];
    if (typeof value === 'string' && !DECIMAL_INTEGER.test(value)) {
      details.push({ field: `${p.in}.${p.name}`, message: 'must be an integer written in decimal digits' });
    }
  }
  return details;
}

/**
 * Refuses integer parameters that are not written as plain decimal digits before the validator
 * sees them: its type coercion would read `0x14`, `1e1`, `20.0` or ` 20` as numbers. Also
 * refuses a query parameter given more than once. Which parameters are integers comes from the
 * contract. Keeps the path parameters, percent-decoded, in `locals.pathParams` (a path that
 * does not decode, `/pets/%ZZ`, throws a URIError: a 400).
 */
export function strictParameters(doc: OpenApiDocument, operations: OperationInfo[]): RequestHandler {
  return perOperation(operations, (op) => {
    const strict = strictParametersOf(doc, op);
    return (req, res, next) => {
      const locals = localsOf(res);
      const rawParams = locals.pathMatch?.rawParams ?? {};
      const params: Record<string, string> = {};
      for (const name in rawParams) params[name] = decodeURIComponent(rawParams[name]!);
      locals.pathParams = params;
      // Express 5 parses the query string anew on every read of req.query; read it once and
      // keep it, for the validator and the handler after this.
      const query = req.query as Record<string, unknown>;
      Object.defineProperty(req, 'query', { value: query, writable: true, enumerable: true, configurable: true });
      const details = parameterProblems(strict, query, params);
      if (details.length > 0) throw new InvalidRequestError(details);
      next();
    };
  });
}
