import { decideClaim } from '../idempotency.js';
import type { ClaimTiming, IdempotencyClaim, IdempotencyRepository, IdempotencyScope } from '../store.js';
import type { PostgresConnection, Query } from './postgres-connection.js';

interface ClaimRow {
  fingerprint: string;
  state: 'in_flight' | 'completed';
  response_status: number | null;
  response_body: string | null;
  /** BIGINT: pg gives it as a string. */
  created_at: string;
  locked_at: string;
}

/**
 * Records the 201 response of the claimed key's request, with `query` of the transaction that
 * created the animal, so a retry finds either nothing or both.
 */
export async function completeClaim(query: Query, scope: IdempotencyScope, body: unknown): Promise<void> {
  const done = await query(
    "UPDATE idempotency_keys SET state = 'completed', response_status = 201, response_body = $1 WHERE api_key_id = $2 AND idempotency_key = $3 AND state = 'in_flight'",
    [JSON.stringify(body), scope.apiKeyId, scope.key],
  );
  if (done.rowCount !== 1) throw new Error(`Idempotency-Key ${scope.key} was not claimed before createPet`);
}

/** Idempotency-Key records in PostgreSQL, shared by every instance. */
export class PostgresIdempotency implements IdempotencyRepository {
  constructor(private readonly connection: PostgresConnection) {}

  async claimIdempotencyKey(scope: IdempotencyScope, fingerprint: string, timing: ClaimTiming): Promise<IdempotencyClaim> {
    const inserted = await this.connection.query(
      `INSERT INTO idempotency_keys (api_key_id, idempotency_key, fingerprint, state, created_at, locked_at)
       VALUES ($1, $2, $3, 'in_flight', $4, $4) ON CONFLICT DO NOTHING`,
      [scope.apiKeyId, scope.key, fingerprint, timing.now.getTime()],
    );
    if (inserted.rowCount === 1) return { outcome: 'claimed' };
    return this.connection.transaction((query) => this.claimTaken(query, scope, fingerprint, timing));
  }

  /** Decides about the record that holds the key, under its row lock, and takes it over if it may. */
  private async claimTaken(query: Query, scope: IdempotencyScope, fingerprint: string, timing: ClaimTiming): Promise<IdempotencyClaim> {
    const row = (
      await query<ClaimRow>(
        'SELECT fingerprint, state, response_status, response_body, created_at, locked_at FROM idempotency_keys WHERE api_key_id = $1 AND idempotency_key = $2 FOR UPDATE',
        [scope.apiKeyId, scope.key],
      )
    ).rows[0];
    const decision = row
      ? decideClaim(
          {
            fingerprint: row.fingerprint,
            state: row.state,
            responseStatus: row.response_status,
            responseBody: row.response_body,
            createdAt: Number(row.created_at),
            lockedAt: Number(row.locked_at),
          },
          fingerprint,
          timing,
        )
      : ({ outcome: 'take_over' } as const);
    if (decision.outcome !== 'take_over') return decision;
    await query(
      `INSERT INTO idempotency_keys (api_key_id, idempotency_key, fingerprint, state, created_at, locked_at)
       VALUES ($1, $2, $3, 'in_flight', $4, $4)
       ON CONFLICT (api_key_id, idempotency_key) DO UPDATE SET
         fingerprint = EXCLUDED.fingerprint, state = 'in_flight', response_status = NULL, response_body = NULL,
         created_at = EXCLUDED.created_at, locked_at = EXCLUDED.locked_at`,
      [scope.apiKeyId, scope.key, fingerprint, timing.now.getTime()],
    );
    return { outcome: 'claimed' };
  }

  async releaseIdempotencyKey(scope: IdempotencyScope): Promise<void> {
    await this.connection.query("DELETE FROM idempotency_keys WHERE api_key_id = $1 AND idempotency_key = $2 AND state = 'in_flight'", [
      scope.apiKeyId,
      scope.key,
    ]);
  }

  async purgeIdempotencyKeys(before: Date): Promise<number> {
    return (await this.connection.query('DELETE FROM idempotency_keys WHERE created_at < $1', [before.getTime()])).rowCount ?? 0;
  }
}
