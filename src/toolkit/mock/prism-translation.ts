import type { Finding, ProblemDetail } from 'contract-kit';

/** The contract's Error body (components.schemas.Error). */
export interface ErrorBody {
  code: string;
  message: string;
  status: number;
  details?: { field: string; message: string }[];
}

interface PrismViolation {
  location?: (string | number)[];
  severity?: string;
  code?: string | number;
  message?: string;
}

/** Error code of the contract for each status Prism produces on its own. */
const CODE_BY_STATUS: Record<number, string> = {
  400: 'invalid_request',
  401: 'unauthorized',
  404: 'not_found',
  405: 'method_not_allowed',
  406: 'invalid_request',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  422: 'invalid_request',
  500: 'internal_error',
  501: 'not_implemented',
};

/**
 * Where an offending field is, as the server names it: `body.name` / `query.limit` /
 * `path.petId` / `header.idempotency-key`. Prism lower-cases parameter names; `names` maps query
 * and path ones back to the contract's spelling, while header names stay in lower case, as Node
 * gives them to the server.
 */
function fieldOf(violation: PrismViolation, names: ReadonlyMap<string, string>): string {
  const location = (violation.location ?? []).slice(1).map(String);
  if (location[0] === 'body' && location.length === 1) {
    const named = /(?:required property|found) '([^']+)'/.exec(violation.message ?? '');
    if (named?.[1]) location.push(named[1]);
  } else if (location.length === 2 && location[0] !== 'body' && location[0] !== 'header') {
    location[1] = names.get(location[1]!.toLowerCase()) ?? location[1]!;
  }
  return location.join('.') || 'request';
}

/** How the server tells what a validator found (contract-kit's readableDetails for the operation), one detail per finding kept. */
export type Wording = (findings: Finding[]) => ProblemDetail[];

/**
 * Prism's message without the field it names first: "Request query parameter limit must be <=
 * 100" is "must be <= 100", and "Request body must NOT have additional properties; found 'id'" (a
 * detail naming body.id) is "must NOT have additional properties".
 */
function withoutField(message: string): string {
  return message
    .replace(/^Request (?:query|path|header|cookie) parameter \S+ /, '')
    .replace(/^Request body (?:property \S+ )?/, '')
    .replace(/; found '[^']*'$/, '');
}

/** Drops the `sl-violations` entries about one response header that the proxy has mended. */
export function withoutHeaderViolation(header: string, name: string): string | null {
  try {
    const rest = (JSON.parse(header) as PrismViolation[]).filter(
      (v) => !(v.location?.[0] === 'response' && v.location?.[1] === 'header' && v.location?.[2] === name),
    );
    return rest.length > 0 ? JSON.stringify(rest) : null;
  } catch {
    return header;
  }
}

/**
 * Turns Prism's answer to an invalid request (its `sl-violations` header, on the 422 or 400 it
 * picks) into the `400 invalid_request` Error body the real server sends, with one detail per
 * field, as `wording` tells the validator's findings (the server's: contract-kit's
 * readableDetails). Returns null for anything else, including security failures, which Prism
 * already answers with the contract's 401.
 */
export function prismViolationsToError(
  status: number,
  header: string | string[] | undefined,
  names: ReadonlyMap<string, string> = new Map(),
  wording: Wording = (findings) => findings.map(({ field, message }) => ({ field, message })),
): ErrorBody | null {
  if ((status !== 400 && status !== 422) || typeof header !== 'string') return null;
  let violations: PrismViolation[];
  try {
    violations = JSON.parse(header) as PrismViolation[];
  } catch {
    return null;
  }
  const request = violations.filter((v) => v.location?.[0] === 'request' && v.severity === 'Error');
  if (request.length === 0 || request.some((v) => v.code === 401)) return null;
  const findings = request.map((v) => ({
    field: fieldOf(v, names),
    keyword: typeof v.code === 'string' ? v.code : undefined,
    message: withoutField(v.message ?? 'is invalid'),
  }));
  return { code: 'invalid_request', message: 'The request is invalid; see details.', status: 400, details: wording(findings) };
}

/** Turns one of Prism's own `application/problem+json` errors into the contract's Error body. */
export function problemToError(status: number, contentType: string | undefined, raw: Buffer): ErrorBody | null {
  if (!contentType?.startsWith('application/problem+json')) return null;
  let problem: { title?: string; detail?: string } = {};
  try {
    problem = JSON.parse(raw.toString('utf8')) as typeof problem;
  } catch {
    // A problem body that is not JSON still becomes an Error body, with a generic message.
  }
  return {
    code: CODE_BY_STATUS[status] ?? (status >= 500 ? 'internal_error' : 'invalid_request'),
    message: problem.detail || problem.title || `The mock answered ${status}.`,
    status: status === 422 ? 400 : status,
  };
}
