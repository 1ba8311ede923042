import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import pg from 'pg';
import type { Redis } from 'ioredis';
import { deleteKeysUnder } from '../../scripts/support/redis-keys.js';
import { connectRedis, type RedisOptions } from '../../src/service/limits/redis-counters.js';

/**
 * The real PostgreSQL and Redis the scale-out tests run against: TEST_DATABASE_URL and
 * TEST_REDIS_URL, or, when they are not set, the default local addresses if something answers
 * there (decided once by services-setup.ts, vitest's global setup). Without either, those tests
 * are skipped, and each skipped file says so and why.
 */
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL ?? '';
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? '';

function announce(what: string, variable: string, why: string | undefined): boolean {
  if (process.env[variable]) return true;
  console.warn(`${what} tests skipped: ${why ?? `${variable} is not set`}. Start it, or set ${variable} (.ci/run does both).`);
  return false;
}

/** Whether PostgreSQL tests run; logs why not when they do not. */
export const postgresEnabled = () => announce('PostgreSQL', 'TEST_DATABASE_URL', process.env.TEST_DATABASE_SKIPPED);
/** Whether Redis tests run; logs why not when they do not. */
export const redisEnabled = () => announce('Redis', 'TEST_REDIS_URL', process.env.TEST_REDIS_SKIPPED);

const schemas: string[] = [];

/** A new, empty schema name for one test; {@link dropTestSchemas} removes them. */
export function newSchemaName(): string {
  const name = `test_${randomBytes(6).toString('hex')}`;
  schemas.push(name);
  return name;
}

/** Creates a schema and returns a DATABASE_URL whose connections use it (for server processes). */
export async function urlWithNewSchema(): Promise<string> {
  const schema = newSchemaName();
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  await client.query(`CREATE SCHEMA ${schema}`);
  await client.end();
  const url = new URL(TEST_DATABASE_URL);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return url.toString();
}

/** Drops every schema this test file created. */
export async function dropTestSchemas(): Promise<void> {
  if (!TEST_DATABASE_URL || schemas.length === 0) return;
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  for (const schema of schemas.splice(0)) await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await client.end();
}

/** A Redis key prefix of one test, and a function that deletes its keys. */
export function newRedisPrefix(): { prefix: string; cleanup: () => Promise<void> } {
  const prefix = `test-${randomBytes(6).toString('hex')}`;
  return {
    prefix,
    cleanup: () => deleteKeysUnder(TEST_REDIS_URL, prefix),
  };
}

/**
 * A Redis connection as the service makes it (connectRedis), once it is ready: before that,
 * counters on it count in memory (the fallback), which a test would take for a miscount.
 */
export async function readyRedis(options: RedisOptions): Promise<Redis> {
  const client = connectRedis(options);
  try {
    if (client.status !== 'ready') await once(client, 'ready');
  } catch (error) {
    client.disconnect();
    throw error;
  }
  return client;
}

/** Resolves once `client`, reconnecting after an outage, is ready again (the errors of its attempts meanwhile are expected). */
export function untilReady(client: Redis): Promise<void> {
  return client.status === 'ready' ? Promise.resolve() : new Promise((resolve) => client.once('ready', () => resolve()));
}
