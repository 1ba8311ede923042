import type { RequestHandler } from 'express';
import { parseKey, type KeyEnvironment } from '../../keys/key-format.js';
import type { BannedAddresses } from '../../limits/banned-addresses.js';
import { addressSubject } from '../../limits/client-address.js';
import type { KeyRepository } from '../../store/store.js';
import { UnauthorizedError } from '../errors/unauthorized-error.js';
import { localsOf } from './locals.js';

/** How many Authorization headers a request has (names are at even positions of rawHeaders). */
function authorizationHeaders(rawHeaders: string[]): number {
  let count = 0;
  for (let i = 0; i < rawHeaders.length; i += 2)
    if (rawHeaders[i]!.length === 13 && rawHeaders[i]!.toLowerCase() === 'authorization') count++;
  return count;
}

// The scheme is case-insensitive (RFC 9110, section 11.1); the key is not.
const BEARER = /^Bearer +([^\s]+)$/i;

/**
 * Finds the API key of a request: a bearer token of the right form and checksum, known, not
 * revoked, and for this environment. A request without one goes on unauthenticated (so the
 * rate limiter can count it by address) and is refused by {@link requireKey}. From a banned
 * address, a key is looked up only as `banned` allows (see BannedAddresses): otherwise the
 * request goes on unauthenticated, and the rate limiter answers with the address's ban.
 */
export function authenticate(keys: KeyRepository, environment: KeyEnvironment, banned: BannedAddresses): RequestHandler {
  return async (req, res, next) => {
    const locals = localsOf(res);
    const header = req.headers.authorization;
    // Node keeps the first of repeated Authorization headers; a request with two is ambiguous.
    if (header !== undefined && authorizationHeaders(req.rawHeaders) > 1) {
      locals.unauthenticatedReason = 'more than one Authorization header';
      return next();
    }
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
    if (!banned.empty && !(await banned.mayLookUp(addressSubject(req.ip, req.socket.remoteAddress), parsed.hash))) {
      locals.unauthenticatedReason = 'the client address is banned; the key was not looked up';
      return next();
    }
    let key;
    try {
      key = await keys.findKeyByHash(parsed.hash);
    } catch (error) {
      // Counted against no limit (rate-limit.ts: an outage is not the client's doing); requireKey answers 503.
      locals.storeError = error as Error;
      locals.unauthenticatedReason = 'the key could not be checked';
      return next();
    }
    if (!key) locals.unauthenticatedReason = 'the key is unknown';
    else if (key.revokedAt) locals.unauthenticatedReason = 'the key was revoked';
    else {
      locals.key = key;
      await banned.noteValid(parsed.hash);
    }
    next();
  };
}

/** Refuses, with 401 and `WWW-Authenticate: Bearer`, a request that has no valid key. */
export const requireKey: RequestHandler = (_req, res, next) => {
  const locals = localsOf(res);
  if (locals.key) return next();
  if (locals.storeError) throw locals.storeError;
  const reason = locals.unauthenticatedReason ?? 'no valid key';
  throw new UnauthorizedError(`A valid API key is required as a bearer token in the Authorization header (${reason}).`);
};
