import type Database from 'better-sqlite3';
import { decideClaim, type IdempotencyRow } from '../idempotency.js';
import type { ClaimTiming, IdempotencyClaim, IdempotencyRepository, IdempotencyScope } from '../store.js';
import { settled } from './settled.js';
import type { WriteHealth } from './write-health.js';

/** Idempotency-Key records in the SQLite file. */
export class SqliteIdempotency implements IdempotencyRepository {
  private readonly statements;
  private readonly claim;

  constructor(
    db: Database.Database,
    private readonly health: WriteHealth,
  ) {
    this.statements = {
      find: db.prepare(
        `SELECT fingerprint, state, response_status AS responseStatus, response_body AS responseBody,
                created_at AS createdAt, locked_at AS lockedAt
           FROM idempotency_keys WHERE api_key_id = ? AND idempotency_key = ?`,
      ),
      upsert: db.prepare(
        `INSERT INTO idempotency_keys (api_key_id, idempotency_key, fingerprint, state, created_at, locked_at)
         VALUES (@apiKeyId, @key, @fingerprint, 'in_flight', @now, @now)
         ON CONFLICT (api_key_id, idempotency_key) DO UPDATE SET
           fingerprint = excluded.fingerprint, state = 'in_flight', response_status = NULL, response_body = NULL,
           created_at = excluded.created_at, locked_at = excluded.locked_at`,
      ),
      complete: db.prepare(
        `UPDATE idempotency_keys SET state = 'completed', response_status = ?, response_body = ?
          WHERE api_key_id = ? AND idempotency_key = ? AND state = 'in_flight'`,
      ),
      release: db.prepare("DELETE FROM idempotency_keys WHERE api_key_id = ? AND idempotency_key = ? AND state = 'in_flight'"),
      purge: db.prepare('DELETE FROM idempotency_keys WHERE created_at < ?'),
    };
    // Built once: better-sqlite3's `transaction` is not free per call.
    this.claim = db.transaction((scope: IdempotencyScope, fingerprint: string, timing: ClaimTiming): IdempotencyClaim => {
      const row = this.statements.find.get(scope.apiKeyId, scope.key) as IdempotencyRow | undefined;
      const decision = row ? decideClaim(row, fingerprint, timing) : ({ outcome: 'take_over' } as const);
      if (decision.outcome !== 'take_over') return decision;
      this.statements.upsert.run({ apiKeyId: scope.apiKeyId, key: scope.key, fingerprint, now: timing.now.getTime() });
      return { outcome: 'claimed' };
    });
  }

  claimIdempotencyKey(scope: IdempotencyScope, fingerprint: string, timing: ClaimTiming): Promise<IdempotencyClaim> {
    return settled(() => {
      try {
        return this.claim.immediate(scope, fingerprint, timing);
      } catch (error) {
        throw this.health.failed(error);
      }
    });
  }

  /**
   * Records the 201 response of the claimed key's request; called inside the transaction that
   * created the animal, so a retry finds either nothing or both.
   */
  complete(scope: IdempotencyScope, body: unknown): void {
    const done = this.statements.complete.run(201, JSON.stringify(body), scope.apiKeyId, scope.key);
    if (done.changes !== 1) throw new Error(`Idempotency-Key ${scope.key} was not claimed before createPet`);
  }

  releaseIdempotencyKey(scope: IdempotencyScope): Promise<void> {
    return settled(() => {
      this.statements.release.run(scope.apiKeyId, scope.key);
    });
  }

  purgeIdempotencyKeys(before: Date): Promise<number> {
    return settled(() => this.statements.purge.run(before.getTime()).changes);
  }
}
