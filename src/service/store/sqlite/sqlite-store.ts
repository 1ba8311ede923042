import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { RepositoryStore } from '../repository-store.js';
import { ReadCaches } from './read-cache.js';
import { settled } from './settled.js';
import { SqliteIdempotency } from './sqlite-idempotency.js';
import { SqliteKeys } from './sqlite-keys.js';
import { migrate } from './sqlite-migrate.js';
import { SqlitePets } from './sqlite-pets.js';
import { WriteHealth } from './write-health.js';

/**
 * The embedded store: one SQLite file (better-sqlite3) in WAL mode, created and migrated when
 * opened. A write is committed before its promise resolves, so an acknowledged animal survives
 * the process being killed.
 */
export class SqliteStore extends RepositoryStore {
  readonly engine = 'sqlite' as const;
  private readonly ready: Database.Statement;

  private constructor(
    private readonly db: Database.Database,
    private readonly health: WriteHealth,
    private readonly pets: SqlitePets,
    keys: SqliteKeys,
    idempotency: SqliteIdempotency,
  ) {
    super({ pets, keys, idempotency });
    this.ready = db.prepare('SELECT 1');
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
    const caches = new ReadCaches(db);
    const health = new WriteHealth(db);
    const idempotency = new SqliteIdempotency(db, health);
    return new SqliteStore(db, health, new SqlitePets(db, caches, health, idempotency), new SqliteKeys(db, caches), idempotency);
  }

  /** Resolves when the store can serve: it reads, and, after a write the file system refused, it can write again. */
  ping(): Promise<void> {
    return settled(() => {
      this.ready.get();
      this.health.check();
    });
  }

  close(): Promise<void> {
    return settled(() => {
      // Animals already handed to createPet are committed (or refused) before the file closes.
      if (this.db.open) this.pets.flush();
      if (this.db.open) this.db.close();
    });
  }
}
