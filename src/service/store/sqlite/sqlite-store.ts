import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { statfs } from 'node:fs/promises';
import { dirname } from 'node:path';
import { ReadCaches } from '../read-cache.js';
import { SqlStore } from '../sql-store.js';
import { StoreUnavailableError } from '../store-unavailable-error.js';
import { sqliteKysely } from './sqlite-driver.js';
import { migrate } from './sqlite-migrate.js';
import { WriteHealth } from './write-health.js';

/** Free space below which the store is not ready: room for a few transactions' pages in the WAL. */
const MIN_FREE_BYTES = 64 * 1024;

/**
 * The embedded store: one SQLite file (better-sqlite3) in WAL mode, created and migrated when
 * opened. A write is committed before its promise resolves, so an acknowledged animal survives
 * the process being killed.
 */
export class SqliteStore extends SqlStore {
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
    // SQLite's own page cache, besides the system's: 4 MB (KiB when negative), not the 16 that
    // better-sqlite3 builds SQLite with (docs/architecture.md, "SQLite page cache").
    db.pragma('cache_size = -4000');
    try {
      migrate(db);
    } catch (error) {
      db.close();
      throw error;
    }
    const health = new WriteHealth(db);
    const dataVersion = db.prepare('PRAGMA data_version').pluck();
    const caches = new ReadCaches(() => dataVersion.get() as number);
    const { kysely, commit } = sqliteKysely(db, health, caches);
    return new SqliteStore({
      engine: 'sqlite',
      db: kysely,
      caches,
      // After a write the file system refused, ready once it can write again; and only with room
      // for writes (a write into pages the WAL already has may succeed on a full disk).
      checkReady: async () => {
        health.check();
        if (db.memory) return;
        const { bavail, bsize } = await statfs(dirname(db.name));
        if (bavail * bsize < MIN_FREE_BYTES)
          throw new StoreUnavailableError(`The file system of the SQLite file has ${bavail * bsize} bytes free.`);
      },
      // Statements already started reach Kysely's connection lock within this turn; the empty
      // statement after them waits for them, so what was handed to the store is committed
      // (or refused) before the file closes.
      beforeClose: async () => {
        await new Promise(setImmediate);
        await kysely.connection().execute(() => Promise.resolve());
        commit();
      },
    });
  }
}
