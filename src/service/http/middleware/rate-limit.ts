import type { RequestHandler } from 'express';
import type { BannedAddresses } from '../../limits/banned-addresses.js';
import type { LimitDecision, RateLimiter } from '../../limits/limiter.js';
import { NO_METRICS, type LimitOutcome, type ServiceMetrics } from '../../metrics/service-metrics.js';
import { addressSubject } from '../../limits/client-address.js';
import { limitsOf, type Limits, type PublicLimits } from '../../limits/plans.js';
import { KeyBannedError } from '../errors/key-banned-error.js';
import { RateLimitedError } from '../errors/rate-limited-error.js';
import { localsOf } from './locals.js';

/** A decision's outcome as the metrics name it. */
const OUTCOME: Record<LimitDecision['outcome'], LimitOutcome> = { allowed: 'allowed', rate_limited: 'refused', banned: 'banned' };

/** X-RateLimit-Limit/Remaining/Reset of a decision: on the app's answers, and on those Node gives before the app sees the request. */
function rateLimitHeaders(decision: LimitDecision): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(decision.limit),
    'X-RateLimit-Remaining': String(decision.remaining),
    'X-RateLimit-Reset': String(decision.resetAt),
  };
}

/** Puts a decision's rate-limit headers on the response, and throws its 429 when it refuses. */
function enforce(res: Parameters<RequestHandler>[1], decision: LimitDecision, subject: 'key' | 'address'): void {
  res.set(rateLimitHeaders(decision));
  if (decision.outcome === 'banned') throw new KeyBannedError(decision.retryAfter ?? 1, subject);
  if (decision.outcome === 'rate_limited') {
    throw new RateLimitedError(decision.window === 'day' ? 'day' : 'minute', decision.limit, decision.retryAfter ?? 1);
  }
}

/**
 * Puts the client address's rate-limit headers on the response, read without counting the
 * request: for an answer that uses no allowance but, like every other, says what is left.
 */
export function addressLimitHeaders(limiter: RateLimiter, anonymousLimits: Limits): RequestHandler {
  return async (req, res, next) => {
    res.set(rateLimitHeaders(await limiter.peek(addressSubject(req.ip, req.socket.remoteAddress), anonymousLimits)));
    next();
  };
}

/**
 * Counts the request against its key (or, without a valid key, against the client address),
 * puts the rate-limit headers on the response whatever happens next, and refuses with 429 when
 * the limit is used up or the key is banned. A key that could not be checked because the store
 * is unavailable is the service's failure, not the client's: that request counts against
 * nothing (an outage must not use up, or get banned, an address that every customer behind a
 * proxy shares) and goes on to its 503.
 */
export function rateLimit(
  limiter: RateLimiter,
  anonymousLimits: Limits,
  banned: BannedAddresses,
  metrics: ServiceMetrics = NO_METRICS,
): RequestHandler {
  return async (req, res, next) => {
    const { key, storeError } = localsOf(res);
    const address = addressSubject(req.ip, req.socket.remoteAddress);
    if (!key && storeError) {
      res.set(rateLimitHeaders(await limiter.peek(address, anonymousLimits)));
      return next();
    }
    if (key) {
      const decision = await limiter.check(`key:${key.id}`, limitsOf(key), address);
      metrics.rateLimit(OUTCOME[decision.outcome], key.plan);
      enforce(res, decision, 'key');
      return next();
    }
    const decision = await limiter.check(address, anonymousLimits, address);
    metrics.rateLimit(OUTCOME[decision.outcome], 'anonymous');
    // Remembered, so that keys sent from this address stop costing store lookups (authenticate.ts).
    if (decision.outcome === 'banned') banned.noteBanned(address, decision.resetAt);
    enforce(res, decision, 'address');
    next();
  };
}

/**
 * Limits what is served without a key per client address, apart from the API's own limits (a
 * client reading the docs uses up nothing of its API allowance, and the other way round), with
 * the rate-limit headers on every answer and 429 with Retry-After past the limit.
 */
export function limitPublic(limiter: RateLimiter, kind: keyof PublicLimits, limits: Limits): RequestHandler {
  return async (req, res, next) => {
    const address = addressSubject(req.ip, req.socket.remoteAddress);
    enforce(res, await limiter.check(`${kind}:${address}`, limits, address), 'address');
    next();
  };
}

/**
 * The rate-limit headers of a client address without a key, read without counting: for the
 * answers to requests Node refused before the app saw them (see start-service.ts).
 */
export function anonymousRateLimitHeaders(deps: { limiter: RateLimiter; anonymousLimits: Limits }) {
  return async (address: string): Promise<Record<string, string>> =>
    rateLimitHeaders(await deps.limiter.peek(addressSubject(undefined, address), deps.anonymousLimits));
}
