import type { Config } from './config/settings.js';
import { SqliteStore } from './store/sqlite/sqlite-store.js';
import type { Store } from './store/store.js';

/**
 * Opens the configured store: PostgreSQL when DATABASE_URL is set, else the SQLite file. The
 * PostgreSQL driver is loaded only then, so an embedded service starts without it.
 */
export async function openStore(
  config: Pick<Config, 'databaseUrl' | 'databasePath' | 'databasePoolSize' | 'databaseConnectTimeoutMs' | 'databaseQueryTimeoutMs'>,
  onPoolError?: (error: Error) => void,
): Promise<Store> {
  if (config.databaseUrl) {
    const { PostgresStore } = await import('./store/postgres/postgres-store.js');
    return PostgresStore.open({
      url: config.databaseUrl,
      poolSize: config.databasePoolSize,
      connectTimeoutMs: config.databaseConnectTimeoutMs,
      queryTimeoutMs: config.databaseQueryTimeoutMs,
      onPoolError,
    });
  }
  return SqliteStore.open(config.databasePath);
}

/** Where the store is, for messages: never the password of a URL. */
export function describeStore(config: Pick<Config, 'databaseUrl' | 'databasePath'>): string {
  if (!config.databaseUrl) return `SQLite at ${config.databasePath}`;
  const url = new URL(config.databaseUrl);
  return `PostgreSQL at ${url.hostname}:${url.port || 5432}${url.pathname}`;
}
