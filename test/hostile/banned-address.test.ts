import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { generateKey } from '../../src/service/keys/key-format.js';
import { LOOKUPS_PER_BANNED_ADDRESS } from '../../src/service/limits/banned-addresses.js';
import { PostgresStore } from '../../src/service/store/postgres/postgres-store.js';
import { SqliteStore } from '../../src/service/store/sqlite/sqlite-store.js';
import type { Store } from '../../src/service/store/store.js';
import { newSchemaName, postgresEnabled, TEST_DATABASE_URL } from '../support/services.js';
import { startTestServer } from '../support/test-server.js';

// Finding 6 of the hostile-client issue: a banned address sending random keys of valid form
// (each would be a store query) must be answered from memory, while keys seen valid keep working.

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

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
        const call = async (key?: string) => {
          const response = await fetch(`${server.baseUrl}/pets?limit=1`, { headers: key ? { Authorization: `Bearer ${key}` } : {} });
          const body = (await response.json()) as { code?: string };
          return { status: response.status, code: body.code };
        };
        const known = await server.newKey('free');
        expect((await call(known)).status).toBe(200);

        // Ban the address: over its limit, then on past the 2 s grace.
        for (let i = 0; i < 6; i++) await call();
        server.clock.advance(2_000);
        let banned = false;
        for (let i = 0; i < 20 && !banned; i++) banned = (await call()).code === 'key_temporarily_banned';
        expect(banned).toBe(true);

        // 2,000 random keys of valid form, 50 at a time.
        lookups = 0;
        const codes = new Map<string, number>();
        for (let batch = 0; batch < 40; batch++) {
          const answers = await Promise.all(Array.from({ length: 50 }, () => call(generateKey('production').key)));
          for (const { status, code } of answers) codes.set(`${status} ${code}`, (codes.get(`${status} ${code}`) ?? 0) + 1);
        }
        console.log(
          `${_name}: 2,000 random keys from a banned address: ${[...codes].map(([k, n]) => `${n} × ${k}`).join(', ')}; ${lookups} key lookups`,
        );
        expect(codes.get('429 key_temporarily_banned')).toBe(2_000);
        expect(lookups).toBeLessThanOrEqual(LOOKUPS_PER_BANNED_ADDRESS);

        // A key seen valid is looked up and works; a new key gets its lookup in the next minute.
        expect((await call(known)).status).toBe(200);
        const fresh = await server.newKey('free');
        server.clock.advance(60_000);
        expect((await call(fresh)).status).toBe(200);
      } finally {
        await server.close();
      }
    },
    60_000,
  );
});
