import type Database from 'better-sqlite3';
import { MIGRATIONS, type Migration } from '../migrations.js';
import { pendingMigrations } from '../pending-migrations.js';

/** The bookkeeping table, as every release has created it in SQLite. */
const BOOKKEEPING =
  'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)';

/**
 * Applies the migrations the database has not seen yet and records each; returns how many. One
 * IMMEDIATE transaction holds SQLite's write lock from the reading of schema_migrations to the
 * last record, so processes opening the file together (the service, the keys CLI) migrate once,
 * and a migration that fails leaves the database as it was.
 */
export function migrate(db: Database.Database, migrations: readonly Migration[] = MIGRATIONS): number {
  // Most opens find nothing to do, and say so without taking the write lock (a keys CLI then
  // does not wait behind a busy service); the unknown-version check runs either way.
  if (pendingMigrations('sqlite', appliedVersions(db), migrations).length === 0) return 0;
  const run = db.transaction((): number => {
    db.exec(BOOKKEEPING);
    const applied = db.prepare('SELECT version FROM schema_migrations').pluck().all() as number[];
    const pending = pendingMigrations('sqlite', applied, migrations);
    const record = db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)');
    for (const step of pending) {
      db.exec(step.sql);
      record.run(step.version, step.name, new Date().toISOString());
    }
    return pending.length;
  });
  return run.immediate();
}

/** The versions schema_migrations records, read outside any transaction; none on a new file. */
function appliedVersions(db: Database.Database): number[] {
  const hasTable = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").get() !== undefined;
  return hasTable ? (db.prepare('SELECT version FROM schema_migrations').pluck().all() as number[]) : [];
}
