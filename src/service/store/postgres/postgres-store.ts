import { Kysely, PostgresDialect } from 'kysely';
import { SqlStore } from '../sql-store.js';
import type { Tables } from '../tables.js';
import { postgresPool, type PostgresOptions } from './postgres-connection.js';
import { migrate } from './postgres-migrate.js';

/**
 * The scale-out store: PostgreSQL through a pg pool with connection and query timeouts. The
 * same behaviour as SqliteStore (test/store/store-suite.ts); a database that is down or slow
 * surfaces as StoreUnavailableError within the timeouts. Nothing is cached: other instances write.
 */
export class PostgresStore extends SqlStore {
  /** Connects, creates the schema if asked, and applies the migrations under an advisory lock. */
  static async open(options: PostgresOptions): Promise<PostgresStore> {
    const db = new Kysely<Tables>({ dialect: new PostgresDialect({ pool: postgresPool(options) }) });
    try {
      await migrate(db, options.schema);
    } catch (error) {
      await db.destroy();
      throw error;
    }
    return new PostgresStore({ engine: 'postgres', db });
  }
}
