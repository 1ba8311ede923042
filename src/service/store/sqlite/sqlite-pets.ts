import type Database from 'better-sqlite3';
import { otherFieldsOf, PET_SELECT, petFromRow } from '../pet-record.js';
import type { IdempotencyScope, Pet, PetPageQuery, PetRepository, PetStatus, PetToCreate } from '../store.js';
import { StoreUnavailableError } from '../store-unavailable-error.js';
import type { ReadCache, ReadCaches } from './read-cache.js';
import { settled } from './settled.js';
import type { SqliteIdempotency } from './sqlite-idempotency.js';
import type { WriteHealth } from './write-health.js';

/** A pets row read with `.raw(true)`: the columns in select order (PET_SELECT), without an object per row. */
type RawPetRow = [id: number, name: string, categoryId: number, status: PetStatus, otherFields: string | null];

const toPet = (row: RawPetRow): Pet => petFromRow(row[0], row[1], row[2], row[3], row[4]);

/** List pages remembered at most (see ReadCache). */
const CACHED_PAGES = 1_000;

/** An animal waiting for the next group commit. */
interface PendingCreate {
  pet: PetToCreate;
  idempotency: IdempotencyScope | undefined;
  resolve: (pet: Pet) => void;
  reject: (error: unknown) => void;
}

type Outcome = { pet: Pet } | { error: unknown };

/**
 * The animals in the SQLite file. List pages are cached (cleared by this connection's writes and
 * by ReadCaches on another's commit); creations are grouped into one commit per turn of the event
 * loop.
 */
export class SqlitePets implements PetRepository {
  private readonly statements;
  private readonly pages: ReadCache<readonly Pet[]>;
  /** Animals to create in the next group commit (see createPet). */
  private pending: PendingCreate[] = [];
  private readonly createBatch;

  constructor(
    private readonly db: Database.Database,
    private readonly caches: ReadCaches,
    private readonly health: WriteHealth,
    private readonly claims: SqliteIdempotency,
  ) {
    this.statements = {
      listAll: db.prepare(`SELECT ${PET_SELECT} FROM pets WHERE id > ? ORDER BY id LIMIT ?`).raw(true),
      listByStatus: db.prepare(`SELECT ${PET_SELECT} FROM pets WHERE status = ? AND id > ? ORDER BY id LIMIT ?`).raw(true),
      insert: db
        .prepare(`INSERT INTO pets (name, category_id, status, other_fields) VALUES (?, ?, ?, ?) RETURNING ${PET_SELECT}`)
        .raw(true),
      get: db.prepare(`SELECT ${PET_SELECT} FROM pets WHERE id = ?`).raw(true),
    };
    this.pages = caches.create(CACHED_PAGES);
    this.createBatch = this.buildCreateBatch();
  }

  listPets(query: PetPageQuery): Promise<Pet[]> {
    return settled(() => this.page(query));
  }

  private page({ limit, status, afterId = 0 }: PetPageQuery): Pet[] {
    this.caches.dropStaleReads();
    const query = `${status ?? ''}:${afterId}:${limit}`;
    const cached = this.pages.get(query);
    if (cached) return cached.slice();
    const rows = (
      status === undefined ? this.statements.listAll.all(afterId, limit) : this.statements.listByStatus.all(status, afterId, limit)
    ) as RawPetRow[];
    const pets: Pet[] = new Array<Pet>(rows.length);
    for (let i = 0; i < rows.length; i++) pets[i] = Object.freeze(toPet(rows[i]!));
    this.pages.set(query, pets);
    return pets.slice();
  }

  getPet(id: number): Promise<Pet | undefined> {
    return settled(() => {
      const row = this.statements.get.get(id) as RawPetRow | undefined;
      return row && toPet(row);
    });
  }

  /**
   * Inserts the animal (and completes its Idempotency-Key claim) in a transaction shared with
   * the other animals created in the same turn of the event loop: one commit for all of them
   * (group commit), each in a savepoint of its own, so one that fails rolls back alone. The
   * promise settles after the commit.
   */
  createPet(pet: PetToCreate, idempotency?: IdempotencyScope): Promise<Pet> {
    return new Promise((resolve, reject) => {
      this.pending.push({ pet, idempotency, resolve, reject });
      if (this.pending.length === 1) setImmediate(this.flush);
    });
  }

  /** Commits the animals waiting for the group commit, and settles their promises. */
  readonly flush = (): void => {
    const batch = this.pending;
    if (batch.length === 0) return;
    this.pending = [];
    let outcomes: Outcome[] = [];
    try {
      this.createBatch.immediate(batch, outcomes);
      if (!outcomes.some((o) => 'error' in o && o.error instanceof StoreUnavailableError)) this.health.succeeded();
    } catch (caught) {
      // The transaction failed as a whole (busy past the timeout, disk full): nothing is stored.
      const error = this.health.failed(caught);
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

  /** The group commit's transaction, built once (better-sqlite3's `transaction` is not free per call). */
  private buildCreateBatch() {
    // Called inside the batch's transaction, better-sqlite3 runs it as a savepoint.
    const createOne = this.db.transaction((pet: PetToCreate, idempotency?: IdempotencyScope): Pet => {
      const created = toPet(this.statements.insert.get(pet.name, pet.categoryId, pet.status, otherFieldsOf(pet)) as RawPetRow);
      if (idempotency) this.claims.complete(idempotency, created);
      return created;
    });
    return this.db.transaction((batch: PendingCreate[], outcomes: Outcome[]) => {
      for (const item of batch) {
        try {
          outcomes.push({ pet: createOne(item.pet, item.idempotency) });
        } catch (error) {
          // Some failures (disk full, I/O error, RAISE(ROLLBACK)) end the whole transaction,
          // not only the savepoint: the rest of the batch must not go on in transactions of
          // their own. The batch fails as one; nothing of it is stored.
          if (!this.db.inTransaction) throw error;
          // A statement the disk refused inside a transaction that goes on: that item gets a
          // 503 like the rest of a refused batch, and readiness is reported accordingly.
          outcomes.push({ error: this.health.failed(error) });
        }
      }
    });
  }
}
