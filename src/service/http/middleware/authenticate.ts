import type { Request, RequestHandler } from 'express';
import { authenticationOf, type Verifier } from 'contract-kit';
import { parseKey, type KeyEnvironment } from '../../keys/key-format.js';
import type { BannedAddresses } from '../../limits/banned-addresses.js';
import { addressSubject } from '../../limits/client-address.js';
import type { ApiKeyRecord, KeyRepository } from '../../store/store.js';
import { StoreUnavailableError } from '../../store/store-unavailable-error.js';
import { UnauthorizedError } from '../errors/unauthorized-error.js';
import { localsOf } from './locals.js';

/** What a bearer token is found to be: a valid key, or why it is not one. */
type Found = { key: ApiKeyRecord } | { reason: string };

/** The challenge of every 401 (RFC 9110, section 11.6.1). */
export const REALM = 'animal-store';

/**
 * Why a key is refused, as the client is told it: what it can act on. A malformed key and one
 * failing its checksum are both a key copied wrong; an unknown key and a revoked one get the same
 * words, so that a 401 never tells whether a key was ever issued.
 */
const NOT_WELL_FORMED = 'the key is malformed or mistyped';
const NOT_VALID = 'the key is unknown or revoked';

const refusal = (reason: string) =>
  new UnauthorizedError(`A valid API key is required as a bearer token in the Authorization header (${reason}).`);

/**
 * Finds the API key of a bearer token: of the right form and checksum, for this environment,
 * known and not revoked. From a banned address, a key is looked up only as `banned` allows (see
 * BannedAddresses): otherwise it is not a key, and the rate limiter answers with the address's
 * ban. A store that cannot be reached throws (StoreUnavailableError).
 */
function keyFinder(keys: KeyRepository, environment: KeyEnvironment, banned: BannedAddresses) {
  return async (token: string, req: Request): Promise<Found> => {
    const parsed = parseKey(token);
    if (!parsed.ok) return { reason: NOT_WELL_FORMED };
    if (parsed.environment !== environment) return { reason: `the key is for ${parsed.environment}, this is ${environment}` };
    if (!banned.empty && !(await banned.mayLookUp(addressSubject(req.ip, req.socket.remoteAddress), parsed.hash))) {
      // Not looked up: the rate limit answers with the address's ban.
      return { reason: NOT_VALID };
    }
    const key = await keys.findKeyByHash(parsed.hash);
    if (!key || key.revokedAt) return { reason: NOT_VALID };
    await banned.noteValid(parsed.hash);
    return { key };
  };
}

/**
 * The verifying function of the contract's bearer scheme (contract-kit calls it with the token
 * of the request's one Authorization header): the key, or a 401 saying why not. A store that
 * cannot be reached throws its StoreUnavailableError: a 503 once the rate limit has let it go by
 * (rate-limit.ts counts it against nothing).
 */
export function apiKeyVerifier(keys: KeyRepository, environment: KeyEnvironment, banned: BannedAddresses): Verifier<ApiKeyRecord> {
  const find = keyFinder(keys, environment, banned);
  return async (credentials, { request }) => {
    if (!('token' in credentials)) return undefined;
    const found = await find(credentials.token, request as Request);
    if ('reason' in found) throw refusal(found.reason);
    return { caller: found.key };
  };
}

/**
 * After contract-kit's authenticate step: the key it found, or the store's failure, noted for the
 * rate limit (rate-limit.ts) and the request's log line.
 */
export const noteCaller: RequestHandler = (req, res, next) => {
  const authentication = authenticationOf(req);
  const locals = localsOf(res);
  locals.key = authentication?.caller as ApiKeyRecord | undefined;
  if (authentication?.failure instanceof StoreUnavailableError) locals.storeError = authentication.failure;
  next();
};

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
 * For a request no operation of the contract answers (a method its path lacks): finds its key as
 * the bearer scheme would, so that it counts against the key's limit, or the address's, before
 * its 405. A request without one goes on; {@link requireKey} refuses it.
 */
export function authenticateUnmatched(keys: KeyRepository, environment: KeyEnvironment, banned: BannedAddresses): RequestHandler {
  const find = keyFinder(keys, environment, banned);
  return async (req, res, next) => {
    const locals = localsOf(res);
    const header = req.headers.authorization;
    const match = typeof header === 'string' ? BEARER.exec(header) : null;
    if (header !== undefined && authorizationHeaders(req.rawHeaders) > 1)
      locals.unauthenticatedReason = 'more than one Authorization header';
    else if (!match)
      locals.unauthenticatedReason = header === undefined ? 'no Authorization header' : 'Authorization is not "Bearer <credentials>"';
    else {
      try {
        const found = await find(match[1]!, req);
        if ('key' in found) locals.key = found.key;
        else locals.unauthenticatedReason = found.reason;
      } catch (error) {
        // Counted against no limit (rate-limit.ts: an outage is not the client's doing); requireKey answers 503.
        locals.storeError = error as Error;
      }
    }
    next();
  };
}

/** Refuses, with 401 and `WWW-Authenticate: Bearer`, a request authenticateUnmatched found no valid key on. */
export const requireKey: RequestHandler = (_req, res, next) => {
  const locals = localsOf(res);
  if (locals.key) return next();
  if (locals.storeError) throw locals.storeError;
  throw refusal(locals.unauthenticatedReason ?? 'no valid key');
};
