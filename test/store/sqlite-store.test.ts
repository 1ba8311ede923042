import Database from 'better-sqlite3';
import { sql, type Kysely } from 'kysely';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MIGRATIONS } from '../../src/service/store/migrations.js';
import { pendingMigrations } from '../../src/service/store/pending-migrations.js';
import { DATA_VERSION_TRUSTED_MS } from '../../src/service/store/read-cache.js';
import { migrate } from '../../src/service/store/sqlite/sqlite-migrate.js';
import { PET_SELECT } from '../../src/service/store/pet-record.js';
import { SqliteStore } from '../../src/service/store/sqlite/sqlite-store.js';
import { defineStoreSuite } from './store-suite.js';

const dir = mkdtempSync(join(tmpdir(), 'animal-store-sqlite-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const freshPath = () => join(dir, `store-${++n}`, 'animal-store.db');
/** Waits until the store reads data_version again (see DATA_VERSION_TRUSTED_MS): at least that long; a busy machine only waits longer, which changes nothing. */
const afterTrustedReading = () => new Promise((resolve) => setTimeout(resolve, DATA_VERSION_TRUSTED_MS + 1));

defineStoreSuite('SQLite', () => Promise.resolve(SqliteStore.open(freshPath())));

describe('SQLite store file', () => {
  it('creates its folder, uses WAL and migrates once', async () => {
    const path = freshPath();
    const store = SqliteStore.open(path);
    const pet = await store.createPet({ name: 'Rex', categoryId: 1, status: 'pending' });
    await store.close();

    const db = new Database(path);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(migrate(db)).toBe(0);
    expect(db.prepare('SELECT count(*) AS n FROM schema_migrations').get()).toEqual({ n: pendingMigrations('sqlite', []).length });
    db.close();

    const reopened = SqliteStore.open(path);
    expect(await reopened.getPet(pet.id)).toEqual(pet);
    await reopened.close();
  });

  it('never reuses an id, even of the last animal', async () => {
    const path = freshPath();
    const store = SqliteStore.open(path);
    const first = await store.createPet({ name: 'A', categoryId: 1, status: 'sold' });
    await store.close();
    const db = new Database(path);
    db.prepare('DELETE FROM pets WHERE id = ?').run(first.id);
    db.close();
    const again = SqliteStore.open(path);
    expect((await again.createPet({ name: 'B', categoryId: 1, status: 'sold' })).id).toBeGreaterThan(first.id);
    await again.close();
  });

  it('sees a key revoked by another connection (the keys CLI, another instance) on lookups a millisecond later, though it caches keys', async () => {
    const path = freshPath();
    const store = SqliteStore.open(path);
    const record = {
      id: 'key_other',
      name: 'x',
      plan: 'free' as const,
      perMinute: null,
      perDay: null,
      environment: 'production' as const,
      hash: 'h'.repeat(64),
      displayPrefix: 'as_prod_abcd',
      createdAt: '2026-01-01T00:00:00.000Z',
      revokedAt: null,
    };
    await store.insertKey(record);
    // Looked up twice: kept from the second lookup on.
    expect((await store.findKeyByHash(record.hash))?.revokedAt).toBeNull();
    expect((await store.findKeyByHash(record.hash))?.revokedAt).toBeNull();
    const other = new Database(path);
    other.prepare("UPDATE api_keys SET revoked_at = '2026-01-02T00:00:00.000Z' WHERE id = ?").run(record.id);
    await afterTrustedReading();
    expect((await store.findKeyByHash(record.hash))?.revokedAt).toBe('2026-01-02T00:00:00.000Z');
    other.prepare('DELETE FROM api_keys WHERE id = ?').run(record.id);
    await afterTrustedReading();
    expect(await store.findKeyByHash(record.hash)).toBeUndefined();
    other.close();
    await store.close();
  });

  it('lists an animal another connection added on reads a millisecond later, and its own at once, though it caches pages', async () => {
    const path = freshPath();
    const store = SqliteStore.open(path);
    await store.createPet({ name: 'Rex', categoryId: 1, status: 'available' });
    const names = async () => (await store.listPets({ limit: 10 })).map((p) => p.name);
    expect(await names()).toEqual(['Rex']);
    const other = new Database(path);
    other.prepare("INSERT INTO pets (name, category_id, status) VALUES ('Tom', 2, 'available')").run();
    await afterTrustedReading();
    expect(await names()).toEqual(['Rex', 'Tom']);
    other.prepare("UPDATE pets SET name = 'Tim' WHERE name = 'Tom'").run();
    await afterTrustedReading();
    expect(await names()).toEqual(['Rex', 'Tim']);
    other.close();
    await store.createPet({ name: 'Nemo', categoryId: 3, status: 'available' });
    expect(await names()).toEqual(['Rex', 'Tim', 'Nemo']);
    await store.close();
  });

  describe('group commit: animals created in the same turn share one transaction', () => {
    const rex = (i: number) => ({ name: `Rex ${i}`, categoryId: 1, status: 'available' as const });

    it('gives each its own id and stores every one, seen by another connection', async () => {
      const path = freshPath();
      const store = SqliteStore.open(path);
      const created = await Promise.all(Array.from({ length: 50 }, (_, i) => store.createPet(rex(i))));
      expect(new Set(created.map((p) => p.id)).size).toBe(50);
      expect(created.map((p) => p.name)).toEqual(Array.from({ length: 50 }, (_, i) => `Rex ${i}`));
      const other = new Database(path, { readonly: true });
      expect(other.prepare('SELECT count(*) FROM pets').pluck().get()).toBe(50);
      other.close();
      await store.close();
    });

    it('rolls back only the one that fails', async () => {
      const store = SqliteStore.open(freshPath());
      const outcomes = await Promise.allSettled([
        store.createPet(rex(1)),
        store.createPet(rex(2), { apiKeyId: 'key_x', key: 'never-claimed', token: 'none' }),
        store.createPet(rex(3)),
      ]);
      expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      expect(String((outcomes[1] as PromiseRejectedResult).reason)).toMatch(/not claimed/);
      expect((await store.listPets({ limit: 10 })).map((p) => p.name)).toEqual(['Rex 1', 'Rex 3']);
      await store.close();
    });

    it('fails the writes of the batch so far, storing none of them, when a failure ends the transaction itself; later ones go on', async () => {
      const path = freshPath();
      const store = SqliteStore.open(path);
      // A failure that rolls back the whole transaction, as a full disk or an I/O error would.
      // A temporary trigger lives on the store's own connection, which Kysely holds.
      await sql`CREATE TEMP TRIGGER fail_boom BEFORE INSERT ON pets WHEN NEW.name = 'Boom' BEGIN SELECT RAISE(ROLLBACK, 'disk on fire'); END`.execute(
        (store as unknown as { db: Kysely<unknown> }).db,
      );
      const outcomes = await Promise.allSettled([
        store.createPet(rex(1)),
        store.createPet({ ...rex(2), name: 'Boom' }),
        store.createPet(rex(3)),
      ]);
      expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected', 'fulfilled']);
      expect(String((outcomes[0] as PromiseRejectedResult).reason)).toMatch(/disk on fire/);
      const other = new Database(path, { readonly: true });
      expect(other.prepare('SELECT name FROM pets').pluck().all()).toEqual(['Rex 3']);
      other.close();
      // and the store goes on working
      await expect(store.createPet(rex(4))).resolves.toMatchObject({ name: 'Rex 4' });
      await store.close();
    });

    it('commits what is waiting before a page is read, and lists the new animal from then on', async () => {
      const store = SqliteStore.open(freshPath());
      expect(await store.listPets({ limit: 10 })).toEqual([]);
      const creating = store.createPet(rex(1));
      const page = await store.listPets({ limit: 10 });
      const created = await creating;
      expect(page).toEqual([created]);
      expect(await store.listPets({ limit: 10 })).toEqual([created]);
      await store.close();
    });

    it('commits what is waiting before the file closes', async () => {
      const path = freshPath();
      const store = SqliteStore.open(path);
      const creating = store.createPet(rex(1));
      await store.close();
      await expect(creating).resolves.toMatchObject({ name: 'Rex 1' });
      const reopened = SqliteStore.open(path);
      expect((await reopened.listPets({ limit: 10 })).map((p) => p.name)).toEqual(['Rex 1']);
      await reopened.close();
    });
  });

  it('opens an up-to-date file while another connection holds the write lock (the keys CLI beside a busy service)', async () => {
    const path = freshPath();
    await SqliteStore.open(path).close();
    const writer = new Database(path);
    writer.exec('BEGIN IMMEDIATE');
    try {
      // Nothing to migrate: the open reads schema_migrations and takes no write lock, so it does
      // not wait out the busy timeout and fail with SQLITE_BUSY.
      const store = SqliteStore.open(path);
      expect(await store.getPet(1)).toBeUndefined();
      await store.close();
    } finally {
      writer.exec('ROLLBACK');
      writer.close();
    }
  });

  it('refuses a database written by a newer release', async () => {
    const path = freshPath();
    await SqliteStore.open(path).close();
    const db = new Database(path);
    db.prepare("INSERT INTO schema_migrations (version, name, applied_at) VALUES (999, 'future', 'x')").run();
    db.close();
    expect(() => SqliteStore.open(path)).toThrow(/schema version\(s\) 999 that this release does not know/);
  });

  it('applies migrations and their records together, or none of them', async () => {
    const path = freshPath();
    await SqliteStore.open(path).close();
    const db = new Database(path);
    const last = MIGRATIONS.at(-1)!.version;
    const broken = { version: last + 1, name: 'broken', sql: 'CREATE TABLE half (a INTEGER); SELECT a FROM nowhere' };
    const fine = { version: last + 2, name: 'fine', sql: 'CREATE TABLE whole (a INTEGER)' };
    expect(() => migrate(db, [...MIGRATIONS, broken, fine])).toThrow(/nowhere/);
    expect(db.prepare("SELECT name FROM sqlite_master WHERE name IN ('half', 'whole')").all()).toEqual([]);
    expect(db.prepare('SELECT max(version) FROM schema_migrations').pluck().get()).toBe(last);
    db.close();
  });

  it('lists a status page from its covering index (pets_status_page…, every column an animal is read from), without a scan, a sort or a table lookup', async () => {
    const path = freshPath();
    await SqliteStore.open(path).close();
    const db = new Database(path);
    const plan = db
      .prepare(`EXPLAIN QUERY PLAN SELECT ${PET_SELECT.join(', ')} FROM pets WHERE status = 'sold' AND id > 0 ORDER BY id LIMIT 21`)
      .all() as { detail: string }[];
    db.close();
    const details = plan.map((p) => p.detail).join('\n');
    expect(details).toContain('USING COVERING INDEX pets_status_page');
    expect(details).not.toMatch(/TEMP B-TREE|SCAN pets/);
  });
});
