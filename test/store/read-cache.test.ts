// The SQLite store's read caches, through the store's own Kysely on a real SQLite file: a result
// is kept from its second load; a write drops the cached results of the table it writes, and only
// those; a statement whose table it cannot tell drops them all.
import Database from 'better-sqlite3';
import { sql } from 'kysely';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ReadCaches } from '../../src/service/store/read-cache.js';
import { sqliteKysely } from '../../src/service/store/sqlite/sqlite-driver.js';
import { migrate } from '../../src/service/store/sqlite/sqlite-migrate.js';
import { WriteHealth } from '../../src/service/store/sqlite/write-health.js';

const dir = mkdtempSync(join(tmpdir(), 'animal-store-read-cache-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function open(name: string) {
  const db = new Database(join(dir, name));
  db.pragma('journal_mode = WAL');
  migrate(db);
  // No other connection writes here: the data version never changes.
  const caches = new ReadCaches(() => 1);
  const { kysely } = sqliteKysely(db, new WriteHealth(db), caches);
  let loads = 0;
  /** Reads `key` of `table` through the cache, counting the loads it could not spare. */
  const read = (table: string, key = 'k') =>
    caches.read(table, key, () => {
      loads++;
      return Promise.resolve(loads);
    });
  return { kysely, caches, read, loads: () => loads, close: () => kysely.destroy() };
}

const key = (id: string) => ({
  id,
  name: 'x',
  plan: 'free' as const,
  per_minute: null,
  per_day: null,
  environment: 'production' as const,
  hash: id.padEnd(64, 'h'),
  display_prefix: 'as_prod_abcd',
  created_at: '2026-01-01T00:00:00.000Z',
  revoked_at: null,
});

describe('read caches', () => {
  it('keep a result from its second load, and forget a key loaded once when 1,000 others were loaded since', async () => {
    const store = open('admission.db');
    await store.read('pets', 'first');
    await store.read('pets', 'first');
    await store.read('pets', 'first');
    expect(store.loads()).toBe(2);

    await store.read('pets', 'once');
    for (let page = 0; page < 1_000; page++) await store.read('pets', `page ${page}`);
    await store.read('pets', 'once');
    await store.read('pets', 'once');
    expect(store.loads()).toBe(2 + 1 + 1_000 + 2);
    await store.close();
  });

  it("keep the API keys' results across writes of animals, and drop them on a write of keys", async () => {
    const store = open('tables.db');
    for (let i = 0; i < 3; i++) {
      await store.read('api_keys');
      await store.read('pets');
    }
    expect(store.loads()).toBe(4);

    await store.kysely.insertInto('pets').values({ name: 'Rex', category_id: 1, status: 'available', other_fields: null }).execute();
    await store.read('api_keys');
    expect(store.loads()).toBe(4);
    // Loaded before: kept again at its first load after the write.
    await store.read('pets');
    await store.read('pets');
    expect(store.loads()).toBe(5);

    await store.kysely.insertInto('api_keys').values(key('key_a')).execute();
    await store.read('pets');
    expect(store.loads()).toBe(5);
    await store.read('api_keys');
    await store.read('api_keys');
    expect(store.loads()).toBe(6);

    await store.kysely.updateTable('api_keys').set({ revoked_at: '2026-01-02T00:00:00.000Z' }).where('id', '=', 'key_a').execute();
    await store.read('api_keys');
    expect(store.loads()).toBe(7);
    await store.kysely.deleteFrom('pets').where('name', '=', 'Rex').execute();
    await store.read('pets');
    await store.read('api_keys');
    expect(store.loads()).toBe(8);
    await store.close();
  });

  it('drop every result on a statement whose table they cannot tell (raw SQL)', async () => {
    const store = open('raw.db');
    for (let i = 0; i < 2; i++) {
      await store.read('api_keys');
      await store.read('pets');
    }
    expect(store.loads()).toBe(4);
    await sql`DELETE FROM idempotency_keys`.execute(store.kysely);
    await store.read('api_keys');
    await store.read('pets');
    expect(store.loads()).toBe(6);
    await store.close();
  });

  it('do not keep a result loaded while a write of its table ran, but keep one loaded across a write of another', async () => {
    const store = open('race.db');
    let loads = 0;
    const loadWhileWriting = async () => {
      loads++;
      await store.kysely.insertInto('pets').values({ name: 'Tom', category_id: 1, status: 'available', other_fields: null }).execute();
      return loads;
    };
    // Loaded three times: each load spans a write of its table, so none is kept.
    for (let i = 0; i < 3; i++) await store.caches.read('pets', 'k', loadWhileWriting);
    expect(loads).toBe(3);
    // Kept from its second load, though a write of animals ran during each.
    for (let i = 0; i < 3; i++) await store.caches.read('api_keys', 'k', loadWhileWriting);
    expect(loads).toBe(5);
    await store.close();
  });
});
