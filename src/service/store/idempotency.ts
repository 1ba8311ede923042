import type { ExpressionBuilder, Kysely } from 'kysely';
import { randomUUID } from 'node:crypto';
import type { ClaimTiming, HeldClaim, IdempotencyClaim, IdempotencyScope } from './records.js';
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

/** The claim statement of SqlStore.claimIdempotencyKey, on `db`. */
export async function claim(
  db: Kysely<Tables>,
  scope: IdempotencyScope,
  fingerprint: string,
  timing: ClaimTiming,
): Promise<IdempotencyClaim> {
  const now = timing.now.getTime();
  const token = randomUUID();
  const claimed = await db
    .insertInto('idempotency_keys')
    .values({
      api_key_id: scope.apiKeyId,
      idempotency_key: scope.key,
      fingerprint,
      state: 'in_flight',
      created_at: now,
      locked_at: now,
      claim_token: token,
    })
    .onConflict((conflict) =>
      conflict
        .columns(['api_key_id', 'idempotency_key'])
        .doUpdateSet({
          fingerprint,
          state: 'in_flight',
          response_status: null,
          response_body: null,
          created_at: now,
          locked_at: now,
          claim_token: token,
        })
        .where((eb) =>
          eb.or([
            eb('idempotency_keys.created_at', '<=', now - timing.retentionMs),
            eb.and([eb('idempotency_keys.state', '=', 'in_flight'), eb('idempotency_keys.locked_at', '<=', now - timing.lockMs)]),
          ]),
        ),
    )
    .returning('state')
    .executeTakeFirst();
  if (claimed) return { outcome: 'claimed', held: { apiKeyId: scope.apiKeyId, key: scope.key, token } };
  const row = await db
    .selectFrom('idempotency_keys')
    .select(['fingerprint', 'state', 'response_status', 'response_body', 'created_at', 'locked_at'])
    .where('api_key_id', '=', scope.apiKeyId)
    .where('idempotency_key', '=', scope.key)
    .executeTakeFirst();
  // Released, expired or lapsed between the two statements: claim again.
  if (!row || row.created_at <= now - timing.retentionMs || (row.state === 'in_flight' && row.locked_at <= now - timing.lockMs))
    return claim(db, scope, fingerprint, timing);
  if (row.state === 'in_flight') return { outcome: 'in_flight', lockedUntil: new Date(row.locked_at + timing.lockMs) };
  if (row.fingerprint !== fingerprint) return { outcome: 'mismatch' };
  return {
    outcome: 'replay',
    status: row.response_status ?? 201,
    body: row.response_body === null ? null : JSON.parse(row.response_body),
  };
}
