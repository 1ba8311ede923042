import { hash } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import { pathParametersOf, type HandlerResult, type Operation } from 'contract-kit';
import type { Clock } from '../../clock.js';
import { NO_METRICS, type ServiceMetrics } from '../../metrics/service-metrics.js';
import { CLAIM_RENEWAL_MS, IDEMPOTENCY_TIMING } from '../../store/idempotency.js';
import type { HeldClaim, IdempotencyRepository } from '../../store/store.js';
import { IdempotencyKeyInUseError } from '../errors/idempotency-key-in-use-error.js';
import { IdempotencyKeyReusedError } from '../errors/idempotency-key-reused-error.js';
import { localsOf, type RequestLocals } from './locals.js';

/** JSON with object keys sorted, so the same body always has the same fingerprint. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * Holds `claim` for as long as its request runs: renewed every CLAIM_RENEWAL_MS, so that only the
 * claim of an instance that died (or stalled past the lock time) lapses; given up when the
 * response closes, unless it was completed (recorded with the animal), which stays.
 */
function holdClaim(res: Response, claim: HeldClaim, store: IdempotencyRepository, clock: Clock, locals: RequestLocals): void {
  const warn = (what: string) => (error: unknown) => locals.log.warn({ err: error }, `could not ${what} an Idempotency-Key claim`);
  const renewal = setInterval(() => {
    store.renewIdempotencyKey(claim, new Date(clock.now())).then((held) => held || clearInterval(renewal), warn('renew'));
  }, CLAIM_RENEWAL_MS);
  renewal.unref();
  res.once('close', () => {
    clearInterval(renewal);
    store.releaseIdempotencyKey(claim).catch(warn('release'));
  });
}

/** Whether an operation declares the Idempotency-Key header. */
const takesIdempotencyKey = (op: Operation) => op.parameters.some((p) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key');

/**
 * Idempotency-Key for every operation that declares it; none for another. Mounted after validation,
 * so invalid requests are never recorded. A first request claims the key and holds the claim
 * while it runs (see holdClaim); the handler's store write records the response in the same
 * transaction (createPet), or else {@link recordAnswer} does, just before it is sent; a retry
 * with the same body gets that response again (with
 * `Idempotent-Replayed: true`) and creates nothing; another body is 422; a retry while the
 * first is in flight is 409, with Retry-After the time left on the first one's claim. A request
 * that fails releases its claim.
 * @see draft-ietf-httpapi-idempotency-key-header
 */
export function idempotency(
  op: Operation,
  store: IdempotencyRepository,
  clock: Clock,
  metrics: ServiceMetrics = NO_METRICS,
): RequestHandler | undefined {
  if (!takesIdempotencyKey(op)) return undefined;
  return async (req, res, next) => {
    const key = req.get('Idempotency-Key');
    const locals = localsOf(res);
    if (key === undefined || !locals.key) return next();
    const scope = { apiKeyId: locals.key.id, key };
    const fingerprint = hash('sha256', canonical({ operation: op.name, params: pathParametersOf(req), body: req.body as unknown }));
    const now = clock.now();
    const claim = await store.claimIdempotencyKey(scope, fingerprint, { now: new Date(now), ...IDEMPOTENCY_TIMING });
    switch (claim.outcome) {
      case 'claimed':
        locals.idempotency = claim.held;
        holdClaim(res, claim.held, store, clock, locals);
        return next();
      case 'replay':
        metrics.idempotentReplay();
        res.set('Idempotent-Replayed', 'true');
        // An answer without content (a 204) was recorded as null: it is replayed without one.
        if (claim.body === null) res.status(claim.status).end();
        else res.status(claim.status).json(claim.body);
        return;
      case 'in_flight':
        throw new IdempotencyKeyInUseError(Math.ceil((claim.lockedUntil.getTime() - now) / 1000));
      case 'mismatch':
        throw new IdempotencyKeyReusedError();
    }
  };
}

/**
 * Records a successful answer under the request's Idempotency-Key claim, if it holds one that its
 * handler's own write did not complete (an operation other than createPet), so that a retry gets
 * it again. The answer is recorded before it is sent: a crash after the handler's work and before
 * this line leaves the claim to lapse, and the retry does the work again (createPet's write
 * records the claim in its own transaction, so it never does).
 */
export function recordAnswer(store: IdempotencyRepository) {
  return async (result: HandlerResult, _req: Request, res: Response): Promise<void> => {
    const held = localsOf(res).idempotency;
    const status = Number(result.status);
    if (!held || status < 200 || status > 299) return;
    await store.completeIdempotencyKey(held, status, result.body);
  };
}
