import { MIGRATIONS, type Migration } from './migrations.js';
import type { Engine } from './records.js';
import { SchemaTooNewError } from './schema-too-new-error.js';

/**
 * The migration runner's decisions, shared by both engines; each engine's runner
 * (sqlite/sqlite-migrate.ts, postgres/postgres-migrate.ts) reads what its database has applied and
 * applies these steps in one transaction under its own lock. A maintained runner did not fit:
 * Kysely's Migrator keeps its own bookkeeping (a kysely_migration table, by name), so existing
 * databases would have to be converted; on PostgreSQL it locks with an advisory key of its own,
 * so an instance of the previous release would not wait for it; on SQLite it runs migrations
 * outside a transaction. umzug can keep our bookkeeping through a storage of ours, but leaves the
 * lock, the transaction and the check for unknown versions to us, which is all this runner is,
 * for umzug and the 36 packages it depends on at run time.
 */

/** One migration as one engine applies it. */
export interface MigrationStep {
  version: number;
  name: string;
  sql: string;
}

/**
 * The migrations a database of `engine` still needs, in order, given the versions its
 * schema_migrations holds. Refuses a database that holds a version this code does not know:
 * a newer release migrated it, and this one may not read its schema right.
 */
export function pendingMigrations(
  engine: Engine,
  applied: readonly number[],
  migrations: readonly Migration[] = MIGRATIONS,
): MigrationStep[] {
  const steps: MigrationStep[] = [];
  for (const { version, name, sql } of migrations) {
    const statements = typeof sql === 'string' ? sql : sql[engine];
    if (statements !== null) steps.push({ version, name, sql: statements });
  }
  const known = new Set(steps.map((step) => step.version));
  const unknown = applied.filter((version) => !known.has(version)).sort((a, b) => a - b);
  if (unknown.length > 0) {
    throw new SchemaTooNewError(unknown);
  }
  const done = new Set(applied);
  return steps.filter((step) => !done.has(step.version));
}
