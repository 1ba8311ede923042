import type Database from 'better-sqlite3';
import {
  Kysely,
  SqliteDialect,
  SqliteDriver,
  type CompiledQuery,
  type DatabaseConnection,
  type KyselyPlugin,
  type QueryId,
  type QueryResult,
  type SqliteDatabase,
  type SqliteStatement,
} from 'kysely';
import type { ReadCaches } from '../read-cache.js';
import type { Tables } from '../tables.js';
import type { WriteHealth } from './write-health.js';

/** Prepared statements kept per SQL text; the store's statements are a few dozen texts. */
const PREPARED = 200;

/** Statements that change rows, which a group commit takes. */
const WRITES = new Set(['InsertQueryNode', 'UpdateQueryNode', 'DeleteQueryNode']);

/**
 * The better-sqlite3 connection as Kysely's SqliteDialect takes it, with statements prepared
 * once per SQL text (preparing costs as much as a cached read) and a write the disk refused
 * rejecting as StoreUnavailableError (WriteHealth).
 */
function preparedOnce(db: Database.Database, health: WriteHealth): SqliteDatabase {
  const prepared = new Map<string, SqliteStatement>();
  const attempt = <T>(work: () => T): T => {
    try {
      return work();
    } catch (error) {
      throw health.failed(error);
    }
  };
  const prepare = (text: string): SqliteStatement => {
    const statement = db.prepare(text);
    return {
      reader: statement.reader,
      all: (parameters) => attempt(() => statement.all(...parameters)),
      run: (parameters) => attempt(() => statement.run(...parameters)),
      iterate: (parameters) => statement.iterate(...parameters),
    };
  };
  return {
    close: () => db.close(),
    prepare(text) {
      let statement = prepared.get(text);
      if (!statement) {
        if (prepared.size >= PREPARED) prepared.clear();
        prepared.set(text, (statement = prepare(text)));
      }
      return statement;
    },
  };
}

/** A transaction that the writes of one turn of the event loop share. */
interface Batch {
  committed: Promise<void>;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit: the writes made outside a transaction in one turn of the event loop share one
 * transaction, committed at the end of the turn; each write's promise settles after that commit
 * (a write is never acknowledged before it is durable). A statement that fails on its own rolls
 * back alone; a failure that ends the transaction (a full disk, an I/O error) fails every write
 * of the batch so far (later ones start another). Reads and transactions first commit what is pending, so they see only
 * committed data. Measured on the store alone: 4 to 5 times the creations per second of one
 * commit per write, when many are under way.
 */
class GroupCommit {
  private batch: Batch | null = null;
  private inTransaction = false;
  /** The batch each write joined, until its result comes back. */
  private readonly joined = new WeakMap<QueryId, Batch>();
  private readonly statements;

  constructor(
    private readonly db: Database.Database,
    private readonly health: WriteHealth,
  ) {
    this.statements = { begin: db.prepare('BEGIN'), commit: db.prepare('COMMIT'), rollback: db.prepare('ROLLBACK') };
  }

  /** Waits, before a write's result is returned, for the commit of the batch it joined. */
  readonly plugin: KyselyPlugin = {
    transformQuery: ({ node }) => node,
    transformResult: async ({ result, queryId }) => {
      const batch = this.joined.get(queryId);
      if (batch) await batch.committed;
      return result;
    },
  };

  /** `connection` with writes grouped: Kysely's own SqliteDriver, whose connection runs each statement synchronously. */
  wrap(connection: DatabaseConnection): DatabaseConnection {
    return {
      executeQuery: <R>(query: CompiledQuery): Promise<QueryResult<R>> => {
        // A failure that ended the transaction (a full disk) left nothing to roll back.
        if (query.sql === 'rollback' && !this.db.inTransaction) {
          this.inTransaction = false;
          return Promise.resolve({ rows: [] });
        }
        const batch = this.before(query);
        const result = connection.executeQuery<R>(query);
        if (batch) this.joined.set(query.queryId, batch);
        return result.catch((error: unknown) => {
          // The failure ended the batch's transaction: nothing of it is stored.
          if (batch && batch === this.batch && !this.db.inTransaction) this.end(error);
          throw error;
        });
      },
      streamQuery: (query, chunkSize) => {
        this.commit();
        return connection.streamQuery(query, chunkSize);
      },
    };
  }

  /** Opens or joins the batch for a write outside a transaction; commits the batch before anything else. */
  private before(query: CompiledQuery): Batch | null {
    if (this.inTransaction) {
      if (query.sql === 'commit' || query.sql === 'rollback') this.inTransaction = false;
      return null;
    }
    if (!WRITES.has(query.query.kind)) {
      this.commit();
      if (query.sql === 'begin') this.inTransaction = true;
      return null;
    }
    if (!this.batch) {
      this.statements.begin.run();
      let resolve!: () => void;
      let reject!: (error: unknown) => void;
      const committed = new Promise<void>((res, rej) => ((resolve = res), (reject = rej)));
      // Its writes handle the rejection; a batch none of whose writes waited must not crash the process.
      committed.catch(() => undefined);
      this.batch = { committed, resolve, reject };
      setImmediate(() => this.commit());
    }
    return this.batch;
  }

  /** Commits the pending batch, if any (also before the file closes). */
  commit(): void {
    if (!this.batch) return;
    try {
      this.statements.commit.run();
      this.health.succeeded();
      this.end(null);
    } catch (error) {
      if (this.db.inTransaction) this.statements.rollback.run();
      this.end(this.health.failed(error));
    }
  }

  private end(error: unknown): void {
    const batch = this.batch!;
    this.batch = null;
    if (error === null) batch.resolve();
    else batch.reject(error);
  }
}

/** Kysely on one better-sqlite3 connection, with group commit and read caches (which drop what a write may change). */
export function sqliteKysely(
  db: Database.Database,
  health: WriteHealth,
  caches: ReadCaches,
): { kysely: Kysely<Tables>; commit: () => void } {
  const group = new GroupCommit(db, health);
  const config = { database: preparedOnce(db, health) };
  const dialect = new (class extends SqliteDialect {
    override createDriver() {
      return new (class extends SqliteDriver {
        private wrapped: DatabaseConnection | undefined;
        override async acquireConnection(): Promise<DatabaseConnection> {
          return (this.wrapped ??= group.wrap(await super.acquireConnection()));
        }
      })(config);
    }
  })(config);
  return { kysely: new Kysely<Tables>({ dialect, plugins: [group.plugin, caches.plugin] }), commit: () => group.commit() };
}
