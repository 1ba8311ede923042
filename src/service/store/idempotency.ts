import type { ExpressionBuilder, Kysely } from 'kysely';
import type { ClaimTiming, HeldClaim } from './records.js';
import type { Tables } from './tables.js';

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

/** The row of `claim`'s key while its request holds it: in flight, under its token. */
export const heldBy = (claim: HeldClaim) => (eb: ExpressionBuilder<Tables, 'idempotency_keys'>) =>
  eb.and({ api_key_id: claim.apiKeyId, idempotency_key: claim.key, state: 'in_flight', claim_token: claim.token });

/** Records an answer under a claim, on `db` (the store, or a transaction); whether the claim was still held. */
export async function complete(db: Kysely<Tables>, claim: HeldClaim, status: number, body: unknown): Promise<boolean> {
  const done = await db
    .updateTable('idempotency_keys')
    .set({ state: 'completed', response_status: status, response_body: JSON.stringify(body ?? null), claim_token: null })
    .where(heldBy(claim))
    .executeTakeFirst();
  return done.numUpdatedRows === 1n;
}
