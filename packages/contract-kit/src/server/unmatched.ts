import type { ErrorRequestHandler, Request, RequestHandler } from 'express';
import type { Dispatch } from '../contract/path-keys.js';
import { takeRequest } from './error-handler.js';
import { HttpProblem, invalidRequest, UNMATCHED_HEADER, type KitProblemCode } from './problems.js';
import { chain } from './steps.js';

/** Why a request was not routed, for the `unmatched` steps: a path the contract lacks, or a method its path lacks. */
export type Unmatched = { refusal: 'not_found' } | { refusal: 'method_not_allowed'; allow: string[] };
const UNMATCHED = Symbol('contract-kit unmatched');
export const unmatchedOf = (req: Request): Unmatched | undefined => (req as Request & { [UNMATCHED]?: Unmatched })[UNMATCHED];

/** Whether a path's percent-encoding is valid (`/books/%ZZ` is not): one that is not is a 400, not a 404. */
function decodes(path: string): boolean {
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
}

/** What a request to a URL of several operations lacks to name one: each query parameter or header they are told apart by, and its values. */
export function undispatched(dispatch: Dispatch[]) {
  const byName = new Map<string, { in: string; name: string; values: Set<string> }>();
  for (const d of dispatch) {
    const key = `${d.in}.${d.name}`;
    const entry = byName.get(key) ?? { in: d.in, name: d.name, values: new Set<string>() };
    if (d.value !== null) entry.values.add(d.value);
    byName.set(key, entry);
  }
  return [...byName.values()].map((d) => {
    const values = [...d.values].slice(0, 10).map((v) => JSON.stringify(v));
    const more = d.values.size > 10 ? `, or ${d.values.size - 10} more` : '';
    return { field: `${d.in}.${d.name}`, message: values.length > 0 ? `must be one of ${values.join(', ')}${more}` : 'is required' };
  });
}

/** Refuses a request no operation takes: the `unmatched` steps, then 404 or 405, answered by `errorHandler`'s contract. */
export function refuser(steps: readonly RequestHandler[], errorHandler: ErrorRequestHandler) {
  const unmatched = chain(steps);
  return (refusal: Unmatched, req: Request, res: Parameters<RequestHandler>[1], next: (error?: unknown) => void) => {
    takeRequest(req, errorHandler);
    if (!decodes(req.path)) return next(invalidRequest([{ field: 'path', message: 'is not valid percent-encoding' }]));
    (req as Request & { [UNMATCHED]?: Unmatched })[UNMATCHED] = refusal;
    unmatched(req, res, (error?: unknown) => {
      if (error !== undefined) return next(error);
      next(
        refusal.refusal === 'not_found'
          ? new HttpProblem<KitProblemCode>(404, 'not_found', `Nothing is at ${req.path}.`, [], { [UNMATCHED_HEADER]: 'not_found' })
          : new HttpProblem<KitProblemCode>(405, 'method_not_allowed', `${req.path} does not take ${req.method}.`, [], {
              Allow: refusal.allow.join(', '),
              [UNMATCHED_HEADER]: 'method_not_allowed',
            }),
      );
    });
  };
}
