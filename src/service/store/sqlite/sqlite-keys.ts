import type Database from 'better-sqlite3';
import { toKey, type KeyRow } from '../key-rows.js';
import type { ApiKeyRecord, KeyRepository } from '../store.js';
import type { ReadCache, ReadCaches } from './read-cache.js';
import { settled } from './settled.js';

/** Keys remembered at most (see ReadCache). */
const CACHED_KEYS = 10_000;

/**
 * API keys in the SQLite file. A key found by its hash is cached: every authenticated request
 * looks one up. The cache is valid while no connection writes keys; this one clears it on its
 * writes, and ReadCaches on another connection's commit (the keys CLI revoking a key).
 */
export class SqliteKeys implements KeyRepository {
  private readonly statements;
  private readonly byHash: ReadCache<ApiKeyRecord>;

  constructor(
    db: Database.Database,
    private readonly caches: ReadCaches,
  ) {
    this.statements = {
      insert: db.prepare(
        `INSERT INTO api_keys (id, name, plan, per_minute, per_day, environment, hash, display_prefix, created_at, revoked_at)
         VALUES (@id, @name, @plan, @perMinute, @perDay, @environment, @hash, @displayPrefix, @createdAt, @revokedAt)`,
      ),
      byHash: db.prepare('SELECT * FROM api_keys WHERE hash = ?'),
      list: db.prepare('SELECT * FROM api_keys ORDER BY created_at, id'),
      revoke: db.prepare('UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ? RETURNING *'),
    };
    this.byHash = caches.create(CACHED_KEYS);
  }

  insertKey(record: ApiKeyRecord): Promise<void> {
    return settled(() => {
      this.statements.insert.run(record);
      this.byHash.clear();
    });
  }

  findKeyByHash(hash: string): Promise<ApiKeyRecord | undefined> {
    return settled(() => this.lookUp(hash));
  }

  private lookUp(hash: string): ApiKeyRecord | undefined {
    this.caches.dropStaleReads();
    const cached = this.byHash.get(hash);
    if (cached) return { ...cached };
    const row = this.statements.byHash.get(hash) as KeyRow | undefined;
    if (!row) return undefined;
    const key = toKey(row);
    this.byHash.set(hash, key);
    return { ...key };
  }

  listKeys(): Promise<ApiKeyRecord[]> {
    return settled(() => (this.statements.list.all() as KeyRow[]).map(toKey));
  }

  revokeKey(id: string, at: Date): Promise<ApiKeyRecord | undefined> {
    return settled(() => {
      const row = this.statements.revoke.get(at.toISOString(), id) as KeyRow | undefined;
      this.byHash.clear();
      return row && toKey(row);
    });
  }
}
