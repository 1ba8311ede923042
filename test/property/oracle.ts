import { RATE_LIMIT_HEADERS, type ContractChecker, type ObservedResponse } from '../contract/conformance.js';
import type { GeneratedRequest } from './arbitraries-from-spec.js';

/** Statuses that refuse a request for what it is; a request the contract allows never gets one. */
const REFUSALS = new Set([400, 401, 403, 405, 413, 415, 431]);

interface ErrorBody {
  code?: string;
  details?: { field: string; message: string }[];
}

/**
 * Whether an Error detail names the field a mutation broke, or a part of it (a detail that names
 * only its parent, `body` for a broken `body.name`, does not say what is wrong).
 * Query names are compared without brackets: `limit[]` is `limit` given as a list.
 */
function names(detail: string, field: string): boolean {
  const a = detail.toLowerCase();
  const b = field.toLowerCase().replace(/^(query\.[^[]+)\[.*$/, '$1');
  return a === b || a.startsWith(`${b}.`);
}

/**
 * What must hold for every response, whatever the request: no 5xx, a status the operation
 * declares, headers and body as the contract says, the rate-limit headers; for a request the
 * contract refuses, the refusal it names (status, code and, on a 400, the offending field); for a
 * request it allows, no refusal. Returns one sentence per violation.
 */
export function contractViolations(checker: ContractChecker, request: GeneratedRequest, observed: ObservedResponse): string[] {
  // A handler not written yet: that alone is what to fix.
  const unimplemented = checker.notImplemented(request.operationId, observed);
  if (unimplemented) return [unimplemented];
  const violations: string[] = [];
  if (observed.status >= 500) violations.push(`answered ${observed.status}`);
  violations.push(...checker.checkResponse(request.operationId, observed));
  for (const name of RATE_LIMIT_HEADERS) {
    if (observed.headers.get(name) === null) violations.push(`no ${name} header`);
  }
  let body: ErrorBody = {};
  try {
    body = JSON.parse(observed.text) as ErrorBody;
  } catch {
    // Reported by the checker.
  }
  const mutation = request.mutation;
  if (mutation) {
    const { status, code } = mutation.expected;
    if (observed.status !== status || body.code !== code) {
      violations.push(
        `${mutation.kind} at ${mutation.field}${mutation.auth ? ` (${mutation.auth})` : ''} must be refused with ${status} ${code}, got ${observed.status} ${body.code ?? ''}`,
      );
    } else if (status === 400 && !(body.details ?? []).some((d) => names(d.field, mutation.field))) {
      violations.push(`the 400 for ${mutation.kind} must name ${mutation.field} in details, got ${JSON.stringify(body.details)}`);
    }
  } else if (REFUSALS.has(observed.status)) {
    violations.push(`a request the contract allows was refused with ${observed.status}: ${observed.text.slice(0, 300)}`);
  }
  return violations;
}
