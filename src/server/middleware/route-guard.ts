import type { RequestHandler } from 'express';
import { MethodNotAllowedError } from '../errors/method-not-allowed-error.js';
import { NotFoundError } from '../errors/not-found-error.js';
import type { PathMatcher } from '../routing.js';

/**
 * Refuses, before anything else reads the request, a path the contract does not have (404) and
 * a method its path does not have (405 with Allow), OPTIONS and HEAD included.
 */
export function routeGuard(paths: PathMatcher): RequestHandler {
  return (req, _res, next) => {
    const here = paths.operationsAt(req.path);
    if (here.length === 0) throw new NotFoundError(`No route ${req.method} ${req.path}.`);
    if (!paths.find(req.method, req.path)) throw new MethodNotAllowedError(req.method, req.path, paths.allowedMethods(req.path));
    next();
  };
}
