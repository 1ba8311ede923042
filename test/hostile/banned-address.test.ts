import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { generateKey } from '../../src/service/keys/key-format.js';
import { LOOKUPS_PER_BANNED_ADDRESS } from '../../src/service/limits/banned-addresses.js';
import { redisCounters } from '../../src/service/limits/redis-counters.js';
import { PostgresStore } from '../../src/service/store/postgres/postgres-store.js';
import { SqliteStore } from '../../src/service/store/sqlite/sqlite-store.js';
import type { Store } from '../../src/service/store/store.js';
import { FakeClock } from '../support/fake-clock.js';
import {
  dropTestSchemas,
  newRedisPrefix,
  newSchemaName,
  postgresEnabled,
  readyRedis,
  redisEnabled,
  TEST_DATABASE_URL,
  TEST_REDIS_URL,
} from '../support/services.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

// Finding 6 of the hostile-client issue: a banned address sending random keys of valid form
// (each would be a store query) must be answered from memory, while keys seen valid keep working.

const dirs: string[] = [];
const redisClients: Redis[] = [];
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  for (const client of redisClients) client.disconnect();
  for (const cleanup of cleanups) await cleanup();
  await dropTestSchemas();
});

/** A request to list pets from the test's loopback address, with `key` if given: its status and error code. */
async function call(server: TestServer, key?: string) {
  const response = await fetch(`${server.baseUrl}/pets?limit=1`, { headers: key ? { Authorization: `Bearer ${key}` } : {} });
  const body = (await response.json()) as { code?: string };
  return { status: response.status, code: body.code };
}

/** Requests without a key until the address is banned: over its limit, then on past the 2 s grace. */
async function banTheAddress(server: TestServer, clock: FakeClock) {
  for (let i = 0; i < 6; i++) await call(server);
  clock.advance(2_000);
  let banned = false;
  for (let i = 0; i < 20 && !banned; i++) banned = (await call(server)).code === 'key_temporarily_banned';
  expect(banned).toBe(true);
}

const engines: [string, boolean, () => Promise<Store>][] = [
  [
    'SQLite',
    true,
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'animal-store-banned-'));
      dirs.push(dir);
      return SqliteStore.open(join(dir, 'store.db'));
    },
  ],
  ['PostgreSQL', postgresEnabled(), () => PostgresStore.open({ url: TEST_DATABASE_URL, schema: newSchemaName() })],
];

describe.each(engines)('a banned address on %s', (_name, enabled, open) => {
  it.runIf(enabled)(
    'costs at most a few key lookups a minute, and keys seen valid still work',
    async () => {
      const store = await open();
      // The real store, with its key lookups counted.
      let lookups = 0;
      const counted = new Proxy(store, {
        get(target, property) {
          if (property === 'findKeyByHash') {
            return (hash: string) => {
              lookups++;
              return target.findKeyByHash(hash);
            };
          }
          const value = Reflect.get(target, property, target) as unknown;
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
      const server = await startTestServer({
        store: counted,
        anonymousLimits: { perMinute: 5, perDay: 1000 },
        ban: { banAfterRefusals: 10, banSeconds: 600 },
      });
      try {
        const known = await server.newKey('free');
        expect((await call(server, known)).status).toBe(200);
        await banTheAddress(server, server.clock);

        // 2,000 random keys of valid form, 50 at a time.
        lookups = 0;
        const codes = new Map<string, number>();
        for (let batch = 0; batch < 40; batch++) {
          const answers = await Promise.all(Array.from({ length: 50 }, () => call(server, generateKey('production').key)));
          for (const { status, code } of answers) codes.set(`${status} ${code}`, (codes.get(`${status} ${code}`) ?? 0) + 1);
        }
        console.log(
          `${_name}: 2,000 random keys from a banned address: ${[...codes].map(([k, n]) => `${n} × ${k}`).join(', ')}; ${lookups} key lookups`,
        );
        expect(codes.get('429 key_temporarily_banned')).toBe(2_000);
        expect(lookups).toBeLessThanOrEqual(LOOKUPS_PER_BANNED_ADDRESS);

        // A key seen valid is looked up and works; a new key gets its lookup in the next minute.
        expect((await call(server, known)).status).toBe(200);
        const fresh = await server.newKey('free');
        server.clock.advance(60_000);
        expect((await call(server, fresh)).status).toBe(200);
      } finally {
        await server.close();
      }
    },
    60_000,
  );
});

describe.skipIf(!redisEnabled())('a banned address with limits in Redis', () => {
  it('lets a key used on one instance in from the address on another instance, and after a restart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'animal-store-banned-'));
    dirs.push(dir);
    const { prefix, cleanup } = newRedisPrefix();
    cleanups.push(cleanup);
    const clock = new FakeClock();
    let fallbacks = 0;
    /** An instance of the service: its own app, store connection and Redis connection, sharing the store file and Redis. */
    const instance = async () => {
      // 2 s: a local Redis answers in well under a millisecond; a command timed out on a busy
      // machine would be counted in memory (the fallback), which the test refuses.
      const client = await readyRedis({ url: TEST_REDIS_URL, commandTimeoutMs: 2_000 });
      redisClients.push(client);
      return startTestServer({
        store: SqliteStore.open(join(dir, 'store.db')),
        counters: redisCounters(client, prefix, () => fallbacks++),
        clock,
        anonymousLimits: { perMinute: 5, perDay: 1000 },
        ban: { banAfterRefusals: 10, banSeconds: 600 },
      });
    };
    /** The address's lookups of unknown keys for this minute, used up on `server`: every one answered with the ban. */
    const useUpLookups = async (server: TestServer) => {
      for (let i = 0; i < LOOKUPS_PER_BANNED_ADDRESS + 5; i++) {
        expect(await call(server, generateKey('production').key)).toEqual({ status: 429, code: 'key_temporarily_banned' });
      }
    };

    const first = await instance();
    const second = await instance();
    const known = await first.newKey('free');
    try {
      expect((await call(first, known)).status).toBe(200);
      await banTheAddress(second, clock);
      await useUpLookups(second);
      expect(await call(second, known), 'on another instance').toEqual({ status: 200, code: undefined });
    } finally {
      await first.close();
      await second.close();
    }

    const restarted = await instance();
    try {
      await useUpLookups(restarted);
      expect(await call(restarted, known), 'after a restart').toEqual({ status: 200, code: undefined });
      const unused = await restarted.newKey('free');
      expect((await call(restarted, unused)).code, 'a key never used waits for the next minute').toBe('key_temporarily_banned');
    } finally {
      await restarted.close();
    }
    expect(fallbacks).toBe(0);
  }, 60_000);
});
