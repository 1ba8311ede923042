import type { ClaimTiming } from './records.js';

/**
 * How long Idempotency-Key records are kept (the contract promises at least 24 hours), and after
 * how long an unfinished claim (its instance died) may be taken over.
 */
export const IDEMPOTENCY_TIMING = { retentionMs: 24 * 60 * 60 * 1000, lockMs: 30_000 } as const satisfies Omit<ClaimTiming, 'now'>;
