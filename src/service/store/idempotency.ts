import type { ClaimTiming, IdempotencyClaim } from './records.js';

/**
 * How long Idempotency-Key records are kept (the contract promises at least 24 hours), and after
 * how long an unfinished claim (its instance died) may be taken over.
 */
export const IDEMPOTENCY_TIMING = { retentionMs: 24 * 60 * 60 * 1000, lockMs: 30_000 } as const satisfies Omit<ClaimTiming, 'now'>;

/** An Idempotency-Key record as both engines keep it. */
export interface IdempotencyRow {
  fingerprint: string;
  state: 'in_flight' | 'completed';
  responseStatus: number | null;
  responseBody: string | null;
  createdAt: number;
  lockedAt: number;
}

/**
 * What to do about an existing record when a request claims its key. `take_over` means the
 * record may be replaced by a new claim: it expired, or its request died without completing.
 * One decision for every engine, so they cannot drift apart.
 */
export function decideClaim(row: IdempotencyRow, fingerprint: string, timing: ClaimTiming): IdempotencyClaim | { outcome: 'take_over' } {
  const now = timing.now.getTime();
  if (row.createdAt <= now - timing.retentionMs) return { outcome: 'take_over' };
  if (row.state === 'in_flight') return row.lockedAt <= now - timing.lockMs ? { outcome: 'take_over' } : { outcome: 'in_flight' };
  if (row.fingerprint !== fingerprint) return { outcome: 'mismatch' };
  return { outcome: 'replay', status: row.responseStatus ?? 201, body: row.responseBody === null ? null : JSON.parse(row.responseBody) };
}
