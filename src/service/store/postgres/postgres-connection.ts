import pg from 'pg';
import { StoreUnavailableError } from '../store-unavailable-error.js';
import { POSTGRES_DEFAULTS } from './postgres-defaults.js';

/** How to reach PostgreSQL, and how long to wait for it. */
export interface PostgresOptions {
  url: string;
  /** Tables live in this schema (created if missing); tests use a schema each. @default public */
  schema?: string;
  /** @default POSTGRES_DEFAULTS.poolSize */
  poolSize?: number;
  /** @default POSTGRES_DEFAULTS.connectTimeoutMs */
  connectTimeoutMs?: number;
  /** @default POSTGRES_DEFAULTS.queryTimeoutMs */
  queryTimeoutMs?: number;
  /** Told about errors of idle connections, which would otherwise crash the process. */
  onPoolError?: (error: Error) => void;
}

// Connection-level failures: the database is down, unreachable, restarting or too slow.
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  '57P01',
  '57P02',
  '57P03',
  '57014',
  '53300',
]);
const UNAVAILABLE_MESSAGES = /timeout|terminated|Connection terminated|not queryable|connect|Client has encountered a connection error/i;

/** Whether an error means "the database is not there right now" rather than a bug or bad data. */
function isUnavailable(error: unknown): boolean {
  const e = error as { code?: string; message?: string } | null;
  if (!e) return false;
  if (e.code && (UNAVAILABLE_CODES.has(e.code) || e.code.startsWith('08'))) return true;
  return !e.code && typeof e.message === 'string' && UNAVAILABLE_MESSAGES.test(e.message);
}

const unavailable = (error: unknown) =>
  new StoreUnavailableError(`PostgreSQL is unavailable: ${(error as Error).message}`, { cause: error });

/** Runs one statement; connection failures and timeouts reject with StoreUnavailableError. */
export type Query = <R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values?: unknown[]) => Promise<pg.QueryResult<R>>;

/**
 * A pg pool with connection and query timeouts, whose failures to reach the database surface as
 * StoreUnavailableError within them. Every repository of PostgresStore queries through it.
 */
export class PostgresConnection {
  /** Runs one statement on a connection of the pool. */
  readonly query: Query;

  private constructor(private readonly pool: pg.Pool) {
    this.query = (text, values) => PostgresConnection.run(pool, text, values);
  }

  /** The pool for `options`; it connects on its first query. */
  static create(options: PostgresOptions): PostgresConnection {
    const schema = options.schema;
    if (schema !== undefined && !/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) throw new Error(`Invalid schema name ${schema}`);
    const queryTimeout = options.queryTimeoutMs ?? POSTGRES_DEFAULTS.queryTimeoutMs;
    const pool = new pg.Pool({
      connectionString: options.url,
      max: options.poolSize ?? POSTGRES_DEFAULTS.poolSize,
      connectionTimeoutMillis: options.connectTimeoutMs ?? POSTGRES_DEFAULTS.connectTimeoutMs,
      query_timeout: queryTimeout,
      statement_timeout: queryTimeout,
      idleTimeoutMillis: 30_000,
      keepAlive: true,
      ...(schema ? { options: `-c search_path=${schema}` } : {}),
    });
    pool.on('error', (error) => options.onPoolError?.(error));
    return new PostgresConnection(pool);
  }

  private static async run<R extends pg.QueryResultRow>(client: pg.Pool | pg.PoolClient, text: string, values: unknown[] = []) {
    try {
      return await client.query<R>(text, values);
    } catch (error) {
      throw isUnavailable(error) ? unavailable(error) : error;
    }
  }

  /** Runs `work` in a transaction on one connection, whose statements it runs with the query it is given. */
  async transaction<T>(work: (query: Query) => Promise<T>): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      throw unavailable(error);
    }
    const query: Query = (text, values) => PostgresConnection.run(client, text, values);
    try {
      await query('BEGIN');
      const result = await work(query);
      await query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  /** Closes the pool's connections (once). */
  async end(): Promise<void> {
    if (!this.pool.ended) await this.pool.end();
  }
}
