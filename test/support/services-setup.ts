import pg from 'pg';
import { Redis } from 'ioredis';

/** Where PostgreSQL and Redis answer on a machine set up as docs/contributing.md says, and on CI. */
export const DEFAULT_TEST_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/test';
export const DEFAULT_TEST_REDIS_URL = 'redis://127.0.0.1:6379';

/** Why PostgreSQL at `url` cannot be used, or null when it answers. */
async function postgresProblem(url: string): Promise<string | null> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1500 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return null;
  } catch (error) {
    return (error as Error).message || String((error as { code?: string }).code);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Why Redis at `url` cannot be used, or null when it answers. */
async function redisProblem(url: string): Promise<string | null> {
  const client = new Redis(url, {
    lazyConnect: true,
    connectTimeout: 1500,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    enableOfflineQueue: false,
  });
  // ioredis rejects with "Connection is closed."; the error event says why.
  let cause: Error | undefined;
  client.on('error', (error: Error) => (cause ??= error));
  try {
    await client.connect();
    await client.ping();
    return null;
  } catch (error) {
    return (cause ?? (error as Error)).message;
  } finally {
    client.disconnect();
  }
}

/**
 * vitest's global setup: the tests that need PostgreSQL or Redis use TEST_DATABASE_URL and
 * TEST_REDIS_URL when set (and fail when those do not answer: whoever set them meant them), else
 * the default local addresses when something answers there, else they are skipped, saying why
 * (TEST_*_SKIPPED, read by test/support/services.ts). Runs once, before the test files.
 */
export default async function setup(): Promise<void> {
  if (!process.env.TEST_DATABASE_URL) {
    const problem = await postgresProblem(DEFAULT_TEST_DATABASE_URL);
    if (problem === null) process.env.TEST_DATABASE_URL = DEFAULT_TEST_DATABASE_URL;
    else
      process.env.TEST_DATABASE_SKIPPED = `TEST_DATABASE_URL is not set and PostgreSQL does not answer at ${DEFAULT_TEST_DATABASE_URL} (${problem})`;
  }
  if (!process.env.TEST_REDIS_URL) {
    const problem = await redisProblem(DEFAULT_TEST_REDIS_URL);
    if (problem === null) process.env.TEST_REDIS_URL = DEFAULT_TEST_REDIS_URL;
    else process.env.TEST_REDIS_SKIPPED = `TEST_REDIS_URL is not set and Redis does not answer at ${DEFAULT_TEST_REDIS_URL} (${problem})`;
  }
}
