import { RepositoryStore } from '../repository-store.js';
import { PostgresConnection, type PostgresOptions } from './postgres-connection.js';
import { PostgresIdempotency } from './postgres-idempotency.js';
import { PostgresKeys } from './postgres-keys.js';
import { migrate } from './postgres-migrate.js';
import { PostgresPets } from './postgres-pets.js';

/**
 * The scale-out store: PostgreSQL through a pg pool with connection and query timeouts. The
 * same behaviour as SqliteStore (test/store/store-suite.ts); a database that is down or slow
 * surfaces as StoreUnavailableError within the timeouts.
 */
export class PostgresStore extends RepositoryStore {
  readonly engine = 'postgres' as const;

  private constructor(private readonly connection: PostgresConnection) {
    super({ pets: new PostgresPets(connection), keys: new PostgresKeys(connection), idempotency: new PostgresIdempotency(connection) });
  }

  /** Connects, creates the schema if asked, and applies the migrations under an advisory lock. */
  static async open(options: PostgresOptions): Promise<PostgresStore> {
    const connection = PostgresConnection.create(options);
    try {
      await migrate(connection, options.schema);
    } catch (error) {
      await connection.end();
      throw error;
    }
    return new PostgresStore(connection);
  }

  async ping(): Promise<void> {
    await this.connection.query('SELECT 1');
  }

  async close(): Promise<void> {
    await this.connection.end();
  }
}
