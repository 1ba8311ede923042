/**
 * PostgreSQL's pool and timeouts when nothing says otherwise: the store's own defaults, and the
 * settings' (DATABASE_POOL_SIZE, DATABASE_CONNECT_TIMEOUT_MS, DATABASE_QUERY_TIMEOUT_MS). A module
 * of its own so that reading the settings does not load the PostgreSQL driver.
 */
export const POSTGRES_DEFAULTS = { poolSize: 10, connectTimeoutMs: 2000, queryTimeoutMs: 5000 } as const;
