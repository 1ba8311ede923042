import type { RequestHandler } from 'express';
import { parseKey, type KeyEnvironment } from '../../keys/key-format.js';
import type { KeyRepository } from '../../store/store.js';
import { UnauthorizedError } from '../errors/unauthorized-error.js';
import { localsOf } from './locals.js';

const BEARER = /^Bearer ([^\s]+)$/;

/**
 * Finds the API key of a request: a bearer token of the right form and checksum, known, not
 * revoked, and for this environment. A request without one goes on unauthenticated (so the
 * rate limiter can count it by address) and is refused by {@link requireKey}.
 */
export function authenticate(keys: KeyRepository, environment: KeyEnvironment): RequestHandler {
  return async (req, res, next) => {
    const locals = localsOf(res);
    const header = req.headers.authorization;
    const match = typeof header === 'string' ? BEARER.exec(header) : null;
    if (!match) {
      locals.unauthenticatedReason = header === undefined ? 'no Authorization header' : 'Authorization is not "Bearer <API key>"';
      return next();
    }
    const parsed = parseKey(match[1]!);
    if (!parsed.ok) {
      locals.unauthenticatedReason = parsed.reason === 'checksum' ? 'the key fails its checksum' : 'the key is malformed';
      return next();
    }
    if (parsed.environment !== environment) {
      locals.unauthenticatedReason = `the key is for ${parsed.environment}, this is ${environment}`;
      return next();
    }
    const key = await keys.findKeyByHash(parsed.hash);
    if (!key) locals.unauthenticatedReason = 'the key is unknown';
    else if (key.revokedAt) locals.unauthenticatedReason = 'the key was revoked';
    else locals.key = key;
    next();
  };
}

/** Refuses, with 401 and `WWW-Authenticate: Bearer`, a request that has no valid key. */
export const requireKey: RequestHandler = (_req, res, next) => {
  const locals = localsOf(res);
  if (locals.key) return next();
  const reason = locals.unauthenticatedReason ?? 'no valid key';
  throw new UnauthorizedError(`A valid API key is required as a bearer token in the Authorization header (${reason}).`);
};
