import { MIGRATIONS, type Migration } from '../migrations.js';
import { pendingMigrations } from '../pending-migrations.js';
import type { PostgresConnection } from './postgres-connection.js';

/** The bookkeeping table, as every release has created it in PostgreSQL. */
const BOOKKEEPING =
  'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())';

/**
 * Creates the schema if asked, then applies the migrations the database has not seen yet and
 * records each, in one transaction; returns how many. Instances starting together take the
 * same advisory lock first, so they migrate one after the other: the first applies, the others
 * find nothing left to do. The lock's key is the one every release has taken, so an instance of
 * the previous release waits for this one too.
 */
export async function migrate(
  connection: PostgresConnection,
  schema?: string,
  migrations: readonly Migration[] = MIGRATIONS,
): Promise<number> {
  return connection.transaction(async (query) => {
    await query("SELECT pg_advisory_xact_lock(hashtext('animal-store migrations'))");
    if (schema) await query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    await query(BOOKKEEPING);
    const applied = (await query<{ version: number }>('SELECT version FROM schema_migrations')).rows.map((row) => row.version);
    const pending = pendingMigrations('postgres', applied, migrations);
    for (const step of pending) {
      await query(step.sql);
      await query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [step.version, step.name]);
    }
    return pending.length;
  });
}
