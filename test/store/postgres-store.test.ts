import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { MIGRATIONS } from '../../src/service/store/migrations.js';
import { pendingMigrations } from '../../src/service/store/pending-migrations.js';
import { Kysely, PostgresDialect, sql } from 'kysely';
import { postgresPool } from '../../src/service/store/postgres/postgres-connection.js';
import { migrate } from '../../src/service/store/postgres/postgres-migrate.js';
import { PostgresStore } from '../../src/service/store/postgres/postgres-store.js';
import { StoreUnavailableError } from '../../src/service/store/store-unavailable-error.js';
import type { Tables } from '../../src/service/store/tables.js';
import { dropTestSchemas, newSchemaName, postgresEnabled, TEST_DATABASE_URL } from '../support/services.js';
import { startTcpProxy } from '../../scripts/support/tcp-proxy.js';
import { defineStoreSuite } from './store-suite.js';

const enabled = postgresEnabled();
afterAll(() => dropTestSchemas());

if (enabled) {
  defineStoreSuite('PostgreSQL', () => PostgresStore.open({ url: TEST_DATABASE_URL, schema: newSchemaName() }));
}

describe.skipIf(!enabled)('PostgreSQL store', () => {
  it('migrates once, even when several instances start together', async () => {
    const schema = newSchemaName();
    const stores = await Promise.all([1, 2, 3].map(() => PostgresStore.open({ url: TEST_DATABASE_URL, schema })));
    const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await client.connect();
    const { rows } = await client.query(`SELECT version FROM ${schema}.schema_migrations ORDER BY version`);
    await client.end();
    expect(rows.map((r: { version: number }) => r.version)).toEqual(pendingMigrations('postgres', []).map((m) => m.version));
    await Promise.all(stores.map((s) => s.close()));
  });

  it('refuses a database written by a newer release', async () => {
    const schema = newSchemaName();
    await (await PostgresStore.open({ url: TEST_DATABASE_URL, schema })).close();
    const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await client.connect();
    await client.query(`INSERT INTO ${schema}.schema_migrations (version, name) VALUES (999, 'future')`);
    await client.end();
    await expect(PostgresStore.open({ url: TEST_DATABASE_URL, schema })).rejects.toThrow(
      /schema version\(s\) 999 that this release does not know/,
    );
  });

  it('applies a migration and its record together, or neither', async () => {
    const schema = newSchemaName();
    const db = new Kysely<Tables>({ dialect: new PostgresDialect({ pool: postgresPool({ url: TEST_DATABASE_URL, schema }) }) });
    const broken = { version: MIGRATIONS.at(-1)!.version + 1, name: 'broken', sql: 'CREATE TABLE half (a INTEGER); SELECT a FROM nowhere' };
    try {
      await migrate(db, schema);
      await expect(migrate(db, schema, [...MIGRATIONS, broken])).rejects.toThrow(/nowhere/);
      const tables = await sql<{
        table_name: string;
      }>`SELECT table_name FROM information_schema.tables WHERE table_schema = ${schema}`.execute(db);
      expect(tables.rows.map((r) => r.table_name)).not.toContain('half');
      const versions = await sql<{ version: number }>`SELECT version FROM schema_migrations ORDER BY version`.execute(db);
      expect(versions.rows.map((r) => r.version)).toEqual(pendingMigrations('postgres', []).map((m) => m.version));
    } finally {
      await db.destroy();
    }
  });

  it('maps BIGINT ids to numbers, up to 2^53-1', async () => {
    const store = await PostgresStore.open({ url: TEST_DATABASE_URL, schema: newSchemaName() });
    const pet = await store.createPet({ name: 'Big', categoryId: 9007199254740991, status: 'sold' });
    expect(typeof pet.id).toBe('number');
    expect((await store.getPet(pet.id))?.categoryId).toBe(9007199254740991);
    await store.close();
  });

  it('fails with StoreUnavailableError within the timeouts when PostgreSQL is down or silent, and recovers', async () => {
    const url = new URL(TEST_DATABASE_URL);
    const proxy = await startTcpProxy(url.hostname, Number(url.port || 5432));
    const viaProxy = new URL(TEST_DATABASE_URL);
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(proxy.port);
    const store = await PostgresStore.open({
      url: viaProxy.toString(),
      schema: newSchemaName(),
      // 2 s: what a silent PostgreSQL costs here, and far from what a connection or a query
      // takes while it answers (milliseconds, a few tens with both cores busy).
      connectTimeoutMs: 2_000,
      queryTimeoutMs: 2_000,
      onPoolError: () => {},
    });
    try {
      await store.ping();
      proxy.setMode('refuse');
      await expect(store.ping()).rejects.toBeInstanceOf(StoreUnavailableError);
      proxy.setMode('blackhole');
      const started = Date.now();
      await expect(store.listPets({ limit: 1 })).rejects.toBeInstanceOf(StoreUnavailableError);
      console.log(`PostgreSQL silent: StoreUnavailableError after ${Date.now() - started} ms (connect timeout 2 s)`);
      proxy.setMode('forward');
      await expect(store.ping()).resolves.toBeUndefined();
    } finally {
      await store.close();
      await proxy.close();
    }
  });
});
