import type { PostgresPool, PostgresPoolClient } from 'kysely';
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

/** BIGINT (type oid 20), which pg gives as a string: ids, category ids and times are numbers up to 2^53-1. */
const BIGINT = 20;

function toSafeInteger(value: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n)) throw new Error(`BIGINT ${value} is beyond 2^53-1`);
  return n;
}

const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary'): unknown =>
    oid === BIGINT ? toSafeInteger : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

/**
 * A pg pool as Kysely's PostgresDialect takes it, with connection and query timeouts, BIGINT
 * read as a number, and failures to reach the database surfacing as StoreUnavailableError
 * within the timeouts.
 */
export function postgresPool(options: PostgresOptions): PostgresPool {
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
    types,
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
  });
  const onError = (error: Error) => options.onPoolError?.(error);
  pool.on('error', onError);
  // Kysely holds a client for each statement: a connection lost while held is told here, not thrown.
  pool.on('connect', (client) => client.on('error', onError));
  return {
    options: pool.options,
    async connect() {
      let client: pg.PoolClient;
      try {
        client = await pool.connect();
      } catch (error) {
        throw unavailable(error);
      }
      // A connection that failed to answer (a timed-out query on a stalled backend, a lost
      // network) may never answer again: it leaves the pool instead of going back to it.
      let broken: Error | undefined;
      return {
        release: () => client.release(broken),
        query: (async (text: string, values: readonly unknown[]) => {
          try {
            return await client.query(text, values as unknown[]);
          } catch (error) {
            if (!isUnavailable(error)) throw error;
            broken = error as Error;
            throw unavailable(error);
          }
        }) as unknown as PostgresPoolClient['query'],
      };
    },
    end: () => (pool.ended ? Promise.resolve() : pool.end()),
  };
}
