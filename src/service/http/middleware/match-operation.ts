import type { RequestHandler } from 'express';
import type { PathMatcher } from '../routing.js';
import { localsOf } from './locals.js';

/**
 * Finds, once per request, what the contract has at its path and the operation for its method
 * (`locals.pathMatch`, `locals.operation`); everything after reads them instead of matching
 * again. Refuses nothing: that is the route guard's job, after authentication.
 */
export function matchOperation(paths: PathMatcher): RequestHandler {
  return (req, res, next) => {
    const locals = localsOf(res);
    const match = paths.match(req.path);
    if (match) {
      locals.pathMatch = match;
      locals.operation = match.byMethod.get(req.method);
    }
    next();
  };
}
