import type { RequestHandler } from 'express';
import { MethodNotAllowedError } from '../errors/method-not-allowed-error.js';
import { allowedMethodsOf } from '../routing.js';
import { NotFoundError } from '../errors/not-found-error.js';
import { localsOf } from './locals.js';

/**
 * Refuses, before anything else reads the request, a path the contract does not have (404) and
 * a method its path does not have (405 with Allow), OPTIONS included; HEAD is the GET operation's
 * (routing.ts). Reads what
 * matchOperation found.
 */
export const routeGuard: RequestHandler = (req, res, next) => {
  const { pathMatch, operation } = localsOf(res);
  if (!pathMatch) throw new NotFoundError(`No route ${req.method} ${req.path}.`);
  if (!operation) {
    throw new MethodNotAllowedError(req.method, req.path, allowedMethodsOf(pathMatch));
  }
  next();
};

/** The last route: whatever neither the contract nor the service's own paths (/healthz, /docs…) answered is a 404. */
export const noRoute: RequestHandler = (req, _res, next) => next(new NotFoundError(`No route ${req.method} ${req.path}.`));
