import { Redis } from 'ioredis';

/**
 * Deletes every key under `prefix` (`prefix:…`, as REDIS_KEY_PREFIX names them) in the Redis at
 * `url`: what a test or a measurement counted there. SCAN, not KEYS, so that a Redis others
 * share is not blocked while it looks.
 */
export async function deleteKeysUnder(url: string, prefix: string): Promise<void> {
  const client = new Redis(url, { maxRetriesPerRequest: 1 });
  try {
    for await (const keys of client.scanStream({ match: `${prefix}:*`, count: 1000 }) as AsyncIterable<string[]>) {
      if (keys.length > 0) await client.unlink(...keys);
    }
  } finally {
    client.disconnect();
  }
}
