import type { ClaimTiming } from './records.js';

/**
 * How long Idempotency-Key records are kept (the contract promises at least 24 hours), and after
 * how long without a renewal a claim whose request did not complete (its instance died, or
 * stalled) may be taken over: the wait a client is told after a crash.
 */
export const IDEMPOTENCY_TIMING = { retentionMs: 24 * 60 * 60 * 1000, lockMs: 3000 } as const satisfies Omit<ClaimTiming, 'now'>;

/**
 * How often a request renews its claim while it runs: three times per lock time, so that two
 * renewals may come late (a busy event loop, a slow store) before the claim lapses.
 */
export const CLAIM_RENEWAL_MS = IDEMPOTENCY_TIMING.lockMs / 3;
