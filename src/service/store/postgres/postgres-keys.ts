import { toKey, type KeyRow } from '../key-rows.js';
import type { ApiKeyRecord, KeyRepository } from '../store.js';
import type { PostgresConnection } from './postgres-connection.js';

/** API keys in PostgreSQL, shared by every instance and the keys CLI. */
export class PostgresKeys implements KeyRepository {
  constructor(private readonly connection: PostgresConnection) {}

  async insertKey(k: ApiKeyRecord): Promise<void> {
    await this.connection.query(
      `INSERT INTO api_keys (id, name, plan, per_minute, per_day, environment, hash, display_prefix, created_at, revoked_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [k.id, k.name, k.plan, k.perMinute, k.perDay, k.environment, k.hash, k.displayPrefix, k.createdAt, k.revokedAt],
    );
  }

  async findKeyByHash(hash: string): Promise<ApiKeyRecord | undefined> {
    const row = (await this.connection.query<KeyRow>('SELECT * FROM api_keys WHERE hash = $1', [hash])).rows[0];
    return row && toKey(row);
  }

  async listKeys(): Promise<ApiKeyRecord[]> {
    return (await this.connection.query<KeyRow>('SELECT * FROM api_keys ORDER BY created_at, id')).rows.map(toKey);
  }

  async revokeKey(id: string, at: Date): Promise<ApiKeyRecord | undefined> {
    const row = (
      await this.connection.query<KeyRow>('UPDATE api_keys SET revoked_at = COALESCE(revoked_at, $1) WHERE id = $2 RETURNING *', [
        at.toISOString(),
        id,
      ])
    ).rows[0];
    return row && toKey(row);
  }
}
