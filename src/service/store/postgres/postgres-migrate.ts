import { sql, type Kysely } from 'kysely';
import { MIGRATIONS, type Migration } from '../migrations.js';
import { pendingMigrations } from '../pending-migrations.js';
import type { Tables } from '../tables.js';

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
export async function migrate(db: Kysely<Tables>, schema?: string, migrations: readonly Migration[] = MIGRATIONS): Promise<number> {
  return db.transaction().execute(async (trx) => {
    await sql`SELECT pg_advisory_xact_lock(hashtext('animal-store migrations'))`.execute(trx);
    if (schema) await sql`CREATE SCHEMA IF NOT EXISTS ${sql.id(schema)}`.execute(trx);
    await sql.raw(BOOKKEEPING).execute(trx);
    const applied = (await sql<{ version: number }>`SELECT version FROM schema_migrations`.execute(trx)).rows.map((row) => row.version);
    const pending = pendingMigrations('postgres', applied, migrations);
    for (const step of pending) {
      // Without parameters, pg sends the text as one simple query: every statement of the step runs.
      await sql.raw(step.sql).execute(trx);
      await sql`INSERT INTO schema_migrations (version, name) VALUES (${step.version}, ${step.name})`.execute(trx);
    }
    return pending.length;
  });
}
