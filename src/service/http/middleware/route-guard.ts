import type { RequestHandler } from 'express';
import { MethodNotAllowedError } from '../errors/method-not-allowed-error.js';
import { NotFoundError } from '../errors/not-found-error.js';

/**
 * Mounted on a contract path after its operations: a method the path does not have is a 405
 * with Allow (`allowed`, HEAD included where GET is), OPTIONS included.
 */
export function methodNotAllowed(allowed: readonly string[]): RequestHandler {
  const methods = [...allowed];
  return (req) => {
    throw new MethodNotAllowedError(req.method, req.path, methods);
  };
}

/** The last route: whatever neither the contract nor the service's own paths (/healthz, /docs…) answered is a 404. */
export const noRoute: RequestHandler = (req, _res, next) => next(new NotFoundError(`No route ${req.method} ${req.path}.`));
