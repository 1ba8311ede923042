import { sql, type Kysely } from 'kysely';
import { placeholders, runCompiled, type CompiledOnce } from './compiled-once.js';
import { ClaimLostError } from './claim-lost-error.js';
import type { EngineParts } from './engine-parts.js';
import { claim, complete, heldBy } from './idempotency.js';
import { toKey } from './key-record.js';
import { PET_SELECT, petFromRow, petValues, type PetRow } from './pet-record.js';
import type {
  ApiKeyRecord,
  ClaimTiming,
  Engine,
  HeldClaim,
  IdempotencyClaim,
  IdempotencyScope,
  Pet,
  PetPageQuery,
  PetStatus,
  PetToCreate,
} from './records.js';
import type { Tables } from './tables.js';

/** A parameter of the page statement. */
type PageParameter = 'afterId' | 'status' | 'limit';

/** Distinct values compiled into the page statement once, each found once among its parameters: where each parameter goes. */
const PAGE_SENTINELS = { afterId: -7_001, status: '\u0000status', limit: -7_002 };

/**
 * The store, written once for SQLite and PostgreSQL with Kysely. A method that writes needs no
 * cache code: the caches drop what a write may change (see ReadCaches). Every method is tested
 * on both engines by test/store/store-suite.ts.
 */
export class SqlStore {
  /** Which engine, for logs and messages. */
  readonly engine: Engine;
  private readonly db: Kysely<Tables>;
  private closing: Promise<void> | undefined;
  /** The page statements compiled so far, by whether they filter by status. */
  private readonly pageStatements = new Map<boolean, CompiledOnce<PageParameter, PetRow>>();
  /** The INSERTs of an animal compiled so far, by the columns they set. */
  private readonly insertStatements = new Map<string, CompiledOnce<string, PetRow>>();

  protected constructor(private readonly parts: EngineParts) {
    this.engine = parts.engine;
    this.db = parts.db;
  }

  /** `load`, a read of `table`, through the engine's cache when it has one. */
  private cached<V>(table: keyof Tables, key: string, load: () => Promise<V>): Promise<V> {
    return this.parts.caches ? this.parts.caches.read(table, key, load) : load();
  }

  /**
   * The keyset page's statement, with or without a status, compiled once (the reads the cache misses most), its status
   * and limit in CASTs, or SQLite's STAT4 prepares it again for each new value (what each saves: architecture.md).
   */
  private pageStatement(filtered: boolean): CompiledOnce<PageParameter, PetRow> {
    let statement = this.pageStatements.get(filtered);
    if (!statement) {
      let query = this.db.selectFrom('pets').select(PET_SELECT).where('id', '>', PAGE_SENTINELS.afterId);
      if (filtered) query = query.where('status', '=', sql<PetStatus>`cast(${PAGE_SENTINELS.status} as text)`);
      const limit = sql<number>`cast(${PAGE_SENTINELS.limit} as integer)`;
      statement = placeholders(query.orderBy('id').limit(limit).compile(), PAGE_SENTINELS);
      this.pageStatements.set(filtered, statement);
    }
    return statement;
  }

  /** The INSERT of an animal that sets `columns` (the others keep their defaults), compiled once (architecture.md). */
  private insertStatement(columns: string[]): CompiledOnce<string, PetRow> {
    const key = columns.join(',');
    let statement = this.insertStatements.get(key);
    if (!statement) {
      const sentinels = Object.fromEntries(columns.map((column) => [column, `\u0000${column}`]));
      const compiled = this.db
        .insertInto('pets')
        .values(sentinels as never)
        .returning(PET_SELECT)
        .compile();
      this.insertStatements.set(key, (statement = placeholders(compiled, sentinels)));
    }
    return statement;
  }

  /** At most `limit` animals after `afterId`, by id ascending (keyset pagination). */
  async listPets({ limit, status, afterId = 0 }: PetPageQuery): Promise<Pet[]> {
    const page = await this.cached('pets', `${status ?? ''}:${afterId}:${limit}`, async () => {
      const { rows } = await runCompiled(this.db, this.parts.caches, this.pageStatement(status !== undefined), { afterId, status, limit });
      return rows.map((row) => Object.freeze(petFromRow(row)));
    });
    return page.slice();
  }

  /** The id of the last animal added, 0 before the first: where a feed that resumes from nothing begins. */
  async lastPetId(): Promise<number> {
    const row = await this.db
      .selectFrom('pets')
      .select((eb) => eb.fn.max('id').as('last'))
      .executeTakeFirst();
    return Number(row?.last ?? 0);
  }

  /** When the animal `id` was added (its transaction's start, on PostgreSQL), or undefined when there is none. */
  async petAddedAt(id: number): Promise<Date | undefined> {
    return this.db
      .selectFrom('pets')
      .select('created_at')
      .where('id', '=', id)
      .executeTakeFirst()
      .then((row) => row && new Date(row.created_at));
  }

  async getPet(id: number): Promise<Pet | undefined> {
    const row = await this.db.selectFrom('pets').select(PET_SELECT).where('id', '=', id).executeTakeFirst();
    return row && petFromRow(row);
  }

  /**
   * Stores an animal and returns it with its new id; ids are never reused. With `claim`, the 201
   * response is recorded under that Idempotency-Key in the same transaction, so a retry finds
   * either nothing or the animal, never half of it; when the claim is no longer this request's
   * (see HeldClaim), nothing is stored and ClaimLostError is thrown.
   */
  async createPet(pet: PetToCreate, claim?: HeldClaim): Promise<Pet> {
    const values = petValues(pet) as Record<string, unknown>;
    const statement = this.insertStatement(Object.keys(values));
    const insert = async (db: Kysely<Tables>) => {
      const [row] = (await runCompiled(db, this.parts.caches, statement, values)).rows;
      if (!row) throw new Error('the INSERT of an animal returned no row');
      return row;
    };
    if (!claim) return petFromRow(await insert(this.db));
    return this.db.transaction().execute(async (trx) => {
      const created = petFromRow(await insert(trx));
      if (!(await complete(trx, claim, 201, created))) throw new ClaimLostError(claim.key);
      return created;
    });
  }

  async insertKey(record: ApiKeyRecord): Promise<void> {
    await this.db
      .insertInto('api_keys')
      .values({
        id: record.id,
        name: record.name,
        plan: record.plan,
        per_minute: record.perMinute,
        per_day: record.perDay,
        environment: record.environment,
        hash: record.hash,
        display_prefix: record.displayPrefix,
        created_at: record.createdAt,
        revoked_at: record.revokedAt,
      })
      .execute();
  }

  /** Cached where the engine caches: every authenticated request looks one up. */
  async findKeyByHash(hash: string): Promise<ApiKeyRecord | undefined> {
    const key = await this.cached('api_keys', hash, async () => {
      const row = await this.db.selectFrom('api_keys').selectAll().where('hash', '=', hash).executeTakeFirst();
      return row && toKey(row);
    });
    return key && { ...key };
  }

  async listKeys(): Promise<ApiKeyRecord[]> {
    return (await this.db.selectFrom('api_keys').selectAll().orderBy('created_at').orderBy('id').execute()).map(toKey);
  }

  /** Marks a key revoked; returns it, or undefined when no key has this id. */
  async revokeKey(id: string, at: Date): Promise<ApiKeyRecord | undefined> {
    const row = await this.db
      .updateTable('api_keys')
      .set({ revoked_at: sql<string>`coalesce(revoked_at, ${at.toISOString()})` })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirst();
    return row && toKey(row);
  }

  /**
   * One statement claims a new key or takes over one that expired or whose claim lapsed (not
   * renewed within the lock time: its instance died or stalled); otherwise the record found says
   * why the key cannot be claimed.
   */
  claimIdempotencyKey(scope: IdempotencyScope, fingerprint: string, timing: ClaimTiming): Promise<IdempotencyClaim> {
    return claim(this.db, scope, fingerprint, timing);
  }

  /**
   * Renews a claim whose request is still running, from `now`; false when it is no longer held
   * (completed, released, or taken over), so there is nothing left to renew.
   */
  async renewIdempotencyKey(claim: HeldClaim, now: Date): Promise<boolean> {
    const renewed = await this.db.updateTable('idempotency_keys').set({ locked_at: now.getTime() }).where(heldBy(claim)).executeTakeFirst();
    return renewed.numUpdatedRows === 1n;
  }

  /**
   * Records the answer of a claimed request whose own write did not (an operation other than
   * createPet), so that a retry gets it again; false when the claim is no longer held (its write
   * recorded it, or another request took it over).
   */
  completeIdempotencyKey(claim: HeldClaim, status: number, body: unknown): Promise<boolean> {
    return complete(this.db, claim, status, body);
  }

  /** Gives up a claim whose request did not complete, so a retry may proceed; a claim no longer held is left alone. */
  async releaseIdempotencyKey(claim: HeldClaim): Promise<void> {
    await this.db.deleteFrom('idempotency_keys').where(heldBy(claim)).execute();
  }

  /** Forgets records created before `before`; returns how many. */
  async purgeIdempotencyKeys(before: Date): Promise<number> {
    const result = await this.db.deleteFrom('idempotency_keys').where('created_at', '<', before.getTime()).executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /** Resolves when the store can serve; rejects otherwise (for /readyz). */
  async ping(): Promise<void> {
    await this.db.selectNoFrom(sql<number>`1`.as('one')).execute();
    await this.parts.checkReady?.();
  }

  /** Closes the connections, once: a second call waits for the first. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      await this.parts.beforeClose?.();
      await this.db.destroy();
    })();
    return this.closing;
  }
}
