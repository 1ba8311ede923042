import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { toKey, type KeyRow } from '../key-rows.js';
import { decideClaim, type IdempotencyRow } from '../idempotency.js';
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
import { SQLITE_MIGRATIONS, type Migration } from './migrations.js';
import { ReadCache } from './read-cache.js';
import { otherFieldsOf, petFromRow } from '../pet-record.js';
import { StoreUnavailableError } from '../store-unavailable-error.js';

/**
 * SQLite's codes for a write the file system refused: out of space, an I/O error, a file that
 * cannot be opened or written. Not the request's fault, and over when the disk is: 503.
 * @see https://www.sqlite.org/rescode.html
 */
const UNWRITABLE = /^SQLITE_(FULL|IOERR|CANTOPEN|READONLY)/;

/** A write failure of the file system as a StoreUnavailableError; anything else as it was. */
function unavailableIfDisk(error: unknown): unknown {
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && UNWRITABLE.test(code)) {
    return new StoreUnavailableError(`The SQLite file cannot be written (${code}).`, { cause: error });
  }
  return error;
}

/** A pets row read with `.raw(true)`: the columns in select order (PET_SELECT), without an object per row. */
type RawPetRow = [id: number, name: string, categoryId: number, status: PetStatus, otherFields: string | null];

/** The columns of an animal, in RawPetRow's order (see pet-record.ts). */
export const PET_SELECT = 'id, name, category_id, status, other_fields';

const toPet = (row: RawPetRow): Pet => petFromRow(row[0], row[1], row[2], row[3], row[4]);

/**
 * How long a reading of `PRAGMA data_version` is trusted, in milliseconds. Reading it costs a
 * read transaction (about a tenth of a cached GET's time when done for every lookup); under load
 * many lookups share one reading instead. A commit by another connection is therefore seen by
 * every read that starts at least this long after it.
 */
export const DATA_VERSION_TRUSTED_MS = 1;

/** An animal waiting for the next group commit. */
interface PendingCreate {
  pet: PetToCreate;
  idempotency: IdempotencyScope | undefined;
  resolve: (pet: Pet) => void;
  reject: (error: unknown) => void;
}

/** Keys and list pages remembered at most (see ReadCache). */
const CACHE_LIMITS = { keys: 10_000, pages: 1_000 } as const;

/** Applies the migrations the database has not seen yet; returns how many it applied. */
export function migrate(db: Database.Database, migrations: Migration[] = SQLITE_MIGRATIONS): number {
  db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)');
  const applied = new Set((db.prepare('SELECT version FROM schema_migrations').all() as { version: number }[]).map((r) => r.version));
  const known = new Set(migrations.map((m) => m.version));
  const unknown = [...applied].filter((v) => !known.has(v));
  if (unknown.length > 0) {
    throw new Error(
      `The database has schema version(s) ${unknown.join(', ')} that this release does not know; it was written by a newer release.`,
    );
  }
  let count = 0;
  for (const migration of migrations) {
    if (applied.has(migration.version)) continue;
    db.transaction(() => {
      db.exec(migration.sql);
      db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(
        migration.version,
        migration.name,
        new Date().toISOString(),
      );
    })();
    count++;
  }
  return count;
}

/**
 * The embedded store: one SQLite file (better-sqlite3) in WAL mode, created and migrated when
 * opened. A write is committed before its promise resolves, so an acknowledged animal survives
 * the process being killed.
 */
export class SqliteStore implements Store {
  readonly engine = 'sqlite' as const;
  private readonly db: Database.Database;
  private readonly statements;
  private readonly transactions;
  /**
   * API keys by hash and list pages by query, as last read. Valid while `PRAGMA data_version`
   * stays what it was when they were read (another connection's commit, such as the keys CLI
   * revoking a key, moves it) and this connection writes nothing they hold (its writes clear
   * them). Every read checks data_version first.
   */
  private readonly keysByHash = new ReadCache<ApiKeyRecord>(CACHE_LIMITS.keys);
  private readonly pages = new ReadCache<readonly Pet[]>(CACHE_LIMITS.pages);
  private dataVersion: number | null = null;
  /** Animals to create in the next group commit (see createPet). */
  private pendingCreates: PendingCreate[] = [];
  private dataVersionReadAt = Number.NEGATIVE_INFINITY;
  /** The last write the file system refused, until a write succeeds again (see ping). */
  private unwritable: StoreUnavailableError | null = null;

  private constructor(db: Database.Database) {
    this.db = db;
    this.statements = {
      listAll: db.prepare(`SELECT ${PET_SELECT} FROM pets WHERE id > ? ORDER BY id LIMIT ?`).raw(true),
      listByStatus: db.prepare(`SELECT ${PET_SELECT} FROM pets WHERE status = ? AND id > ? ORDER BY id LIMIT ?`).raw(true),
      dataVersion: db.prepare('PRAGMA data_version').pluck(),
      insertPet: db
        .prepare(`INSERT INTO pets (name, category_id, status, other_fields) VALUES (?, ?, ?, ?) RETURNING ${PET_SELECT}`)
        .raw(true),
      getPet: db.prepare(`SELECT ${PET_SELECT} FROM pets WHERE id = ?`).raw(true),
      insertKey: db.prepare(
        `INSERT INTO api_keys (id, name, plan, per_minute, per_day, environment, hash, display_prefix, created_at, revoked_at)
         VALUES (@id, @name, @plan, @perMinute, @perDay, @environment, @hash, @displayPrefix, @createdAt, @revokedAt)`,
      ),
      keyByHash: db.prepare('SELECT * FROM api_keys WHERE hash = ?'),
      listKeys: db.prepare('SELECT * FROM api_keys ORDER BY created_at, id'),
      revokeKey: db.prepare('UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ? RETURNING *'),
      ping: db.prepare('SELECT 1'),
      findClaim: db.prepare(
        `SELECT fingerprint, state, response_status AS responseStatus, response_body AS responseBody,
                created_at AS createdAt, locked_at AS lockedAt
           FROM idempotency_keys WHERE api_key_id = ? AND idempotency_key = ?`,
      ),
      upsertClaim: db.prepare(
        `INSERT INTO idempotency_keys (api_key_id, idempotency_key, fingerprint, state, created_at, locked_at)
         VALUES (@apiKeyId, @key, @fingerprint, 'in_flight', @now, @now)
         ON CONFLICT (api_key_id, idempotency_key) DO UPDATE SET
           fingerprint = excluded.fingerprint, state = 'in_flight', response_status = NULL, response_body = NULL,
           created_at = excluded.created_at, locked_at = excluded.locked_at`,
      ),
      completeClaim: db.prepare(
        `UPDATE idempotency_keys SET state = 'completed', response_status = ?, response_body = ?
          WHERE api_key_id = ? AND idempotency_key = ? AND state = 'in_flight'`,
      ),
      releaseClaim: db.prepare("DELETE FROM idempotency_keys WHERE api_key_id = ? AND idempotency_key = ? AND state = 'in_flight'"),
      purgeClaims: db.prepare('DELETE FROM idempotency_keys WHERE created_at < ?'),
    };
    this.transactions = this.buildTransactions(db);
  }

  /** Opens (creating the file and its folder if needed) and migrates the database at `path`. */
  static open(path: string): SqliteStore {
    mkdirSync(dirname(path), { recursive: true });
    const db = new Database(path);
    db.pragma('journal_mode = WAL');
    // With WAL, NORMAL loses nothing when the process dies; only a power cut may drop the last
    // transactions. The keys CLI and the server share the file, hence the busy timeout.
    db.pragma('synchronous = NORMAL');
    db.pragma('busy_timeout = 5000');
    db.pragma('foreign_keys = ON');
    migrate(db);
    return new SqliteStore(db);
  }

  async listPets({ limit, status, afterId = 0 }: PetPageQuery): Promise<Pet[]> {
    this.dropStaleReads();
    const query = `${status ?? ''}:${afterId}:${limit}`;
    const cached = this.pages.get(query);
    if (cached) return cached.slice();
    const rows = (
      status === undefined ? this.statements.listAll.all(afterId, limit) : this.statements.listByStatus.all(status, afterId, limit)
    ) as RawPetRow[];
    const pets: Pet[] = new Array(rows.length);
    for (let i = 0; i < rows.length; i++) pets[i] = Object.freeze(toPet(rows[i]!));
    this.pages.set(query, pets);
    return pets.slice();
  }

  /**
   * Inserts the animal (and completes its Idempotency-Key claim) in a transaction shared with
   * the other animals created in the same turn of the event loop: one commit for all of them
   * (group commit), each in a savepoint of its own, so one that fails rolls back alone. The
   * promise settles after the commit.
   */
  createPet(pet: PetToCreate, idempotency?: IdempotencyScope): Promise<Pet> {
    return new Promise((resolve, reject) => {
      this.pendingCreates.push({ pet, idempotency, resolve, reject });
      if (this.pendingCreates.length === 1) setImmediate(this.flushCreates);
    });
  }

  private readonly flushCreates = (): void => {
    const batch = this.pendingCreates;
    if (batch.length === 0) return;
    this.pendingCreates = [];
    let outcomes: ({ pet: Pet } | { error: unknown })[] = [];
    try {
      this.transactions.createPets.immediate(batch, outcomes);
      if (!outcomes.some((o) => 'error' in o && o.error instanceof StoreUnavailableError)) this.unwritable = null;
    } catch (caught) {
      // The transaction failed as a whole (busy past the timeout, disk full): nothing is stored.
      const error = this.writeFailed(caught);
      outcomes = batch.map(() => ({ error }));
    }
    // Pages read while the batch waited may lack its animals.
    this.pages.clear();
    batch.forEach((item, i) => {
      const outcome = outcomes[i]!;
      if ('pet' in outcome) item.resolve(outcome.pet);
      else item.reject(outcome.error);
    });
  };

  /** The store's transactions, built once (better-sqlite3's `transaction` is not free per call). */
  private buildTransactions(db: Database.Database) {
    // Called inside createPets, better-sqlite3 runs it as a savepoint.
    const createPet = db.transaction((pet: PetToCreate, idempotency?: IdempotencyScope): Pet => {
      const row = this.statements.insertPet.get(pet.name, pet.categoryId, pet.status, otherFieldsOf(pet)) as RawPetRow;
      const created = toPet(row);
      if (idempotency) {
        const done = this.statements.completeClaim.run(201, JSON.stringify(created), idempotency.apiKeyId, idempotency.key);
        if (done.changes !== 1) throw new Error(`Idempotency-Key ${idempotency.key} was not claimed before createPet`);
      }
      return created;
    });
    return {
      createPets: db.transaction((batch: PendingCreate[], outcomes: ({ pet: Pet } | { error: unknown })[]) => {
        for (const item of batch) {
          try {
            outcomes.push({ pet: createPet(item.pet, item.idempotency) });
          } catch (error) {
            // Some failures (disk full, I/O error, RAISE(ROLLBACK)) end the whole transaction,
            // not only the savepoint: the rest of the batch must not go on in transactions of
            // their own. The batch fails as one; nothing of it is stored.
            if (!db.inTransaction) throw error;
            // A statement the disk refused inside a transaction that goes on: that item gets a
            // 503 like the rest of a refused batch, and readiness is reported accordingly.
            outcomes.push({ error: this.writeFailed(error) });
          }
        }
      }),
      claimIdempotencyKey: db.transaction((scope: IdempotencyScope, fingerprint: string, timing: ClaimTiming): IdempotencyClaim => {
        const row = this.statements.findClaim.get(scope.apiKeyId, scope.key) as IdempotencyRow | undefined;
        const decision = row ? decideClaim(row, fingerprint, timing) : ({ outcome: 'take_over' } as const);
        if (decision.outcome !== 'take_over') return decision;
        this.statements.upsertClaim.run({ apiKeyId: scope.apiKeyId, key: scope.key, fingerprint, now: timing.now.getTime() });
        return { outcome: 'claimed' };
      }),
    };
  }

  async claimIdempotencyKey(scope: IdempotencyScope, fingerprint: string, timing: ClaimTiming): Promise<IdempotencyClaim> {
    try {
      return this.transactions.claimIdempotencyKey.immediate(scope, fingerprint, timing);
    } catch (error) {
      throw this.writeFailed(error);
    }
  }

  /** Notes a write the file system refused (for ping) and says so as a StoreUnavailableError. */
  private writeFailed(error: unknown): unknown {
    const mapped = unavailableIfDisk(error);
    if (mapped instanceof StoreUnavailableError) this.unwritable = mapped;
    return mapped;
  }

  async releaseIdempotencyKey(scope: IdempotencyScope): Promise<void> {
    this.statements.releaseClaim.run(scope.apiKeyId, scope.key);
  }

  async purgeIdempotencyKeys(before: Date): Promise<number> {
    return this.statements.purgeClaims.run(before.getTime()).changes;
  }

  async getPet(id: number): Promise<Pet | undefined> {
    const row = this.statements.getPet.get(id) as RawPetRow | undefined;
    return row && toPet(row);
  }

  async insertKey(record: ApiKeyRecord): Promise<void> {
    this.statements.insertKey.run(record);
    this.keysByHash.clear();
  }

  /**
   * Forgets every cached read when another connection has committed since it was read (checked
   * at most once per DATA_VERSION_TRUSTED_MS).
   */
  private dropStaleReads(): void {
    const now = performance.now();
    if (now - this.dataVersionReadAt < DATA_VERSION_TRUSTED_MS) return;
    this.dataVersionReadAt = now;
    const version = this.statements.dataVersion.get() as number;
    if (version !== this.dataVersion) {
      this.keysByHash.clear();
      this.pages.clear();
      this.dataVersion = version;
    }
  }

  async findKeyByHash(hash: string): Promise<ApiKeyRecord | undefined> {
    this.dropStaleReads();
    const cached = this.keysByHash.get(hash);
    if (cached) return { ...cached };
    const row = this.statements.keyByHash.get(hash) as KeyRow | undefined;
    if (!row) return undefined;
    const key = toKey(row);
    this.keysByHash.set(hash, key);
    return { ...key };
  }

  async listKeys(): Promise<ApiKeyRecord[]> {
    return (this.statements.listKeys.all() as KeyRow[]).map(toKey);
  }

  async revokeKey(id: string, at: Date): Promise<ApiKeyRecord | undefined> {
    const row = this.statements.revokeKey.get(at.toISOString(), id) as KeyRow | undefined;
    this.keysByHash.clear();
    return row && toKey(row);
  }

  /**
   * Resolves when the store can serve: it reads, and, after a write the file system refused, it
   * can write again. That is checked with a write of the database header (its user_version
   * written back unchanged), so that readiness comes back once space does, whether or not a
   * client writes in the meantime.
   */
  async ping(): Promise<void> {
    this.statements.ping.get();
    if (!this.unwritable) return;
    try {
      this.db.pragma(`user_version = ${Number(this.db.pragma('user_version', { simple: true }))}`);
      this.unwritable = null;
    } catch (error) {
      throw this.writeFailed(error);
    }
  }

  async close(): Promise<void> {
    // Animals already handed to createPet are committed (or refused) before the file closes.
    if (this.db.open) this.flushCreates();
    if (this.db.open) this.db.close();
  }
}
