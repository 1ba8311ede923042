import pg from 'pg';
import { StoreUnavailableError } from '../store-unavailable-error.js';
import { toKey, type KeyRow } from '../key-rows.js';
import { decideClaim } from '../idempotency.js';
import type { Migration } from '../sqlite/migrations.js';
import type {
  ApiKeyRecord,
  ClaimTiming,
  IdempotencyClaim,
  IdempotencyScope,
  Pet,
  PetPageQuery,
  PetStatus,
  PetToCreate,
  Store,
} from '../store.js';
import { POSTGRES_MIGRATIONS } from './migrations.js';
import { otherFieldsOf, petFromRow } from '../pet-record.js';

/** How to reach PostgreSQL, and how long to wait for it. */
export interface PostgresOptions {
  url: string;
  /** Tables live in this schema (created if missing); tests use a schema each. @default public */
  schema?: string;
  /** @default 10 */
  poolSize?: number;
  /** @default 2000 */
  connectTimeoutMs?: number;
  /** @default 5000 */
  queryTimeoutMs?: number;
  /** Told about errors of idle connections, which would otherwise crash the process. */
  onPoolError?: (error: Error) => void;
}

interface PetRow {
  id: string;
  name: string;
  category_id: string;
  status: PetStatus;
  /** A JSON column: pg gives it parsed. */
  other_fields: object | null;
}

/** The columns of an animal (see pet-record.ts). */
const PET_SELECT = 'id, name, category_id, status, other_fields';

interface ClaimRow {
  fingerprint: string;
  state: 'in_flight' | 'completed';
  response_status: number | null;
  response_body: string | null;
  created_at: string;
  locked_at: string;
}

/** pg returns BIGINT as a string; every id and category id goes through here. */
function toSafeInteger(value: string, column: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n)) throw new Error(`${column} ${value} is beyond 2^53-1`);
  return n;
}

const toPet = (row: PetRow): Pet =>
  petFromRow(toSafeInteger(row.id, 'pets.id'), row.name, toSafeInteger(row.category_id, 'pets.category_id'), row.status, row.other_fields);

// Connection-level failures: the database is down, unreachable, restarting or too slow.
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  '57P01',
  '57P02',
  '57P03',
  '57014',
  '53300',
]);
const UNAVAILABLE_MESSAGES = /timeout|terminated|Connection terminated|not queryable|connect|Client has encountered a connection error/i;

/** Whether an error means "the database is not there right now" rather than a bug or bad data. */
export function isUnavailable(error: unknown): boolean {
  const e = error as { code?: string; message?: string } | null;
  if (!e) return false;
  if (e.code && (UNAVAILABLE_CODES.has(e.code) || e.code.startsWith('08'))) return true;
  return !e.code && typeof e.message === 'string' && UNAVAILABLE_MESSAGES.test(e.message);
}

/**
 * The scale-out store: PostgreSQL through a pg pool with connection and query timeouts. The
 * same behaviour as SqliteStore (test/store/store-suite.ts); a database that is down or slow
 * surfaces as StoreUnavailableError within the timeouts.
 */
export class PostgresStore implements Store {
  readonly engine = 'postgres' as const;

  private constructor(private readonly pool: pg.Pool) {}

  /** Connects, creates the schema if asked, and applies the migrations under an advisory lock. */
  static async open(options: PostgresOptions): Promise<PostgresStore> {
    const schema = options.schema;
    if (schema !== undefined && !/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) throw new Error(`Invalid schema name ${schema}`);
    const queryTimeout = options.queryTimeoutMs ?? 5000;
    const pool = new pg.Pool({
      connectionString: options.url,
      max: options.poolSize ?? 10,
      connectionTimeoutMillis: options.connectTimeoutMs ?? 2000,
      query_timeout: queryTimeout,
      statement_timeout: queryTimeout,
      idleTimeoutMillis: 30_000,
      keepAlive: true,
      ...(schema ? { options: `-c search_path=${schema}` } : {}),
    });
    pool.on('error', (error) => options.onPoolError?.(error));
    const store = new PostgresStore(pool);
    try {
      await store.migrate(POSTGRES_MIGRATIONS, schema);
    } catch (error) {
      await pool.end();
      throw error;
    }
    return store;
  }

  /** Runs a query, turning connection failures and timeouts into StoreUnavailableError. */
  private async query<R extends pg.QueryResultRow>(text: string, values: unknown[] = [], client: pg.Pool | pg.PoolClient = this.pool) {
    try {
      return await client.query<R>(text, values);
    } catch (error) {
      if (isUnavailable(error)) throw new StoreUnavailableError(`PostgreSQL is unavailable: ${(error as Error).message}`, { cause: error });
      throw error;
    }
  }

  /** Runs `work` in a transaction on one connection. */
  private async transaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      throw new StoreUnavailableError(`PostgreSQL is unavailable: ${(error as Error).message}`, { cause: error });
    }
    try {
      await this.query('BEGIN', [], client);
      const result = await work(client);
      await this.query('COMMIT', [], client);
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  private async migrate(migrations: Migration[], schema?: string): Promise<void> {
    await this.transaction(async (client) => {
      // Instances starting together migrate one after the other.
      await this.query("SELECT pg_advisory_xact_lock(hashtext('animal-store migrations'))", [], client);
      if (schema) await this.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`, [], client);
      await this.query(
        'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())',
        [],
        client,
      );
      const applied = new Set(
        (await this.query<{ version: number }>('SELECT version FROM schema_migrations', [], client)).rows.map((r) => r.version),
      );
      const known = new Set(migrations.map((m) => m.version));
      const unknown = [...applied].filter((v) => !known.has(v));
      if (unknown.length > 0) {
        throw new Error(
          `The database has schema version(s) ${unknown.join(', ')} that this release does not know; it was written by a newer release.`,
        );
      }
      for (const migration of migrations) {
        if (applied.has(migration.version)) continue;
        await this.query(migration.sql, [], client);
        await this.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [migration.version, migration.name], client);
      }
    });
  }

  async listPets({ limit, status, afterId = 0 }: PetPageQuery): Promise<Pet[]> {
    const result =
      status === undefined
        ? await this.query<PetRow>(`SELECT ${PET_SELECT} FROM pets WHERE id > $1 ORDER BY id LIMIT $2`, [afterId, limit])
        : await this.query<PetRow>(`SELECT ${PET_SELECT} FROM pets WHERE status = $1 AND id > $2 ORDER BY id LIMIT $3`, [
            status,
            afterId,
            limit,
          ]);
    return result.rows.map(toPet);
  }

  async createPet(pet: PetToCreate, idempotency?: IdempotencyScope): Promise<Pet> {
    const insert = `INSERT INTO pets (name, category_id, status, other_fields) VALUES ($1, $2, $3, $4) RETURNING ${PET_SELECT}`;
    const values = [pet.name, pet.categoryId, pet.status, otherFieldsOf(pet)];
    if (!idempotency) return toPet((await this.query<PetRow>(insert, values)).rows[0]!);
    return this.transaction(async (client) => {
      const created = toPet((await this.query<PetRow>(insert, values, client)).rows[0]!);
      const done = await this.query(
        "UPDATE idempotency_keys SET state = 'completed', response_status = 201, response_body = $1 WHERE api_key_id = $2 AND idempotency_key = $3 AND state = 'in_flight'",
        [JSON.stringify(created), idempotency.apiKeyId, idempotency.key],
        client,
      );
      if (done.rowCount !== 1) throw new Error(`Idempotency-Key ${idempotency.key} was not claimed before createPet`);
      return created;
    });
  }

  async getPet(id: number): Promise<Pet | undefined> {
    const row = (await this.query<PetRow>(`SELECT ${PET_SELECT} FROM pets WHERE id = $1`, [id])).rows[0];
    return row && toPet(row);
  }

  async insertKey(k: ApiKeyRecord): Promise<void> {
    await this.query(
      `INSERT INTO api_keys (id, name, plan, per_minute, per_day, environment, hash, display_prefix, created_at, revoked_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [k.id, k.name, k.plan, k.perMinute, k.perDay, k.environment, k.hash, k.displayPrefix, k.createdAt, k.revokedAt],
    );
  }

  async findKeyByHash(hash: string): Promise<ApiKeyRecord | undefined> {
    const row = (await this.query<KeyRow>('SELECT * FROM api_keys WHERE hash = $1', [hash])).rows[0];
    return row && toKey(row);
  }

  async listKeys(): Promise<ApiKeyRecord[]> {
    return (await this.query<KeyRow>('SELECT * FROM api_keys ORDER BY created_at, id')).rows.map(toKey);
  }

  async revokeKey(id: string, at: Date): Promise<ApiKeyRecord | undefined> {
    const row = (
      await this.query<KeyRow>('UPDATE api_keys SET revoked_at = COALESCE(revoked_at, $1) WHERE id = $2 RETURNING *', [
        at.toISOString(),
        id,
      ])
    ).rows[0];
    return row && toKey(row);
  }

  async claimIdempotencyKey(scope: IdempotencyScope, fingerprint: string, timing: ClaimTiming): Promise<IdempotencyClaim> {
    const now = timing.now.getTime();
    const inserted = await this.query(
      `INSERT INTO idempotency_keys (api_key_id, idempotency_key, fingerprint, state, created_at, locked_at)
       VALUES ($1, $2, $3, 'in_flight', $4, $4) ON CONFLICT DO NOTHING`,
      [scope.apiKeyId, scope.key, fingerprint, now],
    );
    if (inserted.rowCount === 1) return { outcome: 'claimed' };
    return this.transaction(async (client) => {
      const row = (
        await this.query<ClaimRow>(
          'SELECT fingerprint, state, response_status, response_body, created_at, locked_at FROM idempotency_keys WHERE api_key_id = $1 AND idempotency_key = $2 FOR UPDATE',
          [scope.apiKeyId, scope.key],
          client,
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
      await this.query(
        `INSERT INTO idempotency_keys (api_key_id, idempotency_key, fingerprint, state, created_at, locked_at)
         VALUES ($1, $2, $3, 'in_flight', $4, $4)
         ON CONFLICT (api_key_id, idempotency_key) DO UPDATE SET
           fingerprint = EXCLUDED.fingerprint, state = 'in_flight', response_status = NULL, response_body = NULL,
           created_at = EXCLUDED.created_at, locked_at = EXCLUDED.locked_at`,
        [scope.apiKeyId, scope.key, fingerprint, now],
        client,
      );
      return { outcome: 'claimed' };
    });
  }

  async releaseIdempotencyKey(scope: IdempotencyScope): Promise<void> {
    await this.query("DELETE FROM idempotency_keys WHERE api_key_id = $1 AND idempotency_key = $2 AND state = 'in_flight'", [
      scope.apiKeyId,
      scope.key,
    ]);
  }

  async purgeIdempotencyKeys(before: Date): Promise<number> {
    return (await this.query('DELETE FROM idempotency_keys WHERE created_at < $1', [before.getTime()])).rowCount ?? 0;
  }

  async ping(): Promise<void> {
    await this.query('SELECT 1');
  }

  async close(): Promise<void> {
    if (!this.pool.ended) await this.pool.end();
  }
}
