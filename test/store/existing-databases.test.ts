import Database from 'better-sqlite3';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { PostgresStore } from '../../src/service/store/postgres/postgres-store.js';
import { SqliteStore } from '../../src/service/store/sqlite/sqlite-store.js';
import { MIGRATIONS } from '../../src/service/store/migrations.js';
import type { Store } from '../../src/service/store/store.js';
import { asStored } from '../support/stored-animal.js';
import { dropTestSchemas, newSchemaName, postgresEnabled, TEST_DATABASE_URL } from '../support/services.js';

// Databases migrated by the code before the migrations were written once for both engines
// (before migrations were written once for both engines): their bookkeeping (schema_migrations: version, name, applied_at) and schema, kept as
// fixtures made by that code. Opening one with this code must apply and record only the
// migrations added since, lose nothing, and serve what it holds.

const fixture = (engine: 'sqlite' | 'postgres') =>
  readFileSync(new URL(`fixtures/existing-database.${engine}.sql`, import.meta.url), 'utf8');

/** What the fixtures hold, as the store returns it. */
const ANIMALS = [
  { id: 1, name: 'Rex', categoryId: 1, status: 'available' },
  { id: 2, name: 'Tom', categoryId: 9007199254740991, status: 'sold', nickname: 'Tommy', tags: ['grey', 'old'] },
  { id: 3, name: 'Nemo', categoryId: 3, status: 'pending' },
];
const KEY_HASH = 'a'.repeat(64);
const RETRY = { apiKeyId: 'key_existing', key: 'retry-1' };
const LATER = { now: new Date('2026-01-02T00:01:00.000Z'), lockMs: 60_000, retentionMs: 86_400_000 };

/** The migrations added after the fixtures were made (they hold versions 1 to 5). */
const ADDED_SINCE = MIGRATIONS.filter((migration) => migration.version > 5).map((migration) => [migration.version, migration.name]);

type Rows = Record<string, Record<string, unknown>[]>;

/**
 * `after` is `before` with the migrations added since applied and recorded: every row kept in
 * every column it had, claim_token empty (a column added since, with a default, holds it).
 */
function migratedSince(before: Rows, after: Rows): void {
  const applied = before.schema_migrations!.length;
  expect(after.schema_migrations!.slice(0, applied)).toEqual(before.schema_migrations);
  expect(after.schema_migrations!.slice(applied).map((row) => [row.version, row.name])).toEqual(ADDED_SINCE);
  expect(after.idempotency_keys!.map((row) => row.claim_token)).toEqual(before.idempotency_keys!.map(() => null));
  const columnsBefore = (table: string, rows: Record<string, unknown>[]) =>
    rows.map((row, i) => Object.fromEntries(Object.keys(before[table]![i] ?? {}).map((column) => [column, row[column]])));
  for (const table of Object.keys(before).filter((name) => name !== 'schema_migrations'))
    expect(columnsBefore(table, after[table] ?? []), table).toEqual(before[table]);
}

/** Reads, replays and writes through the store what the fixture holds. */
async function servesWhatItHolds(store: Store): Promise<void> {
  const listed = await store.listPets({ limit: 10 });
  expect(listed).toEqual(ANIMALS.map((animal, i) => asStored(animal, listed[i] ?? {})));
  expect(await store.listPets({ limit: 10, status: 'sold' })).toEqual([listed[1]]);
  expect(await store.findKeyByHash(KEY_HASH)).toMatchObject({ id: 'key_existing', plan: 'enterprise', perMinute: 100, perDay: 1000 });
  expect(await store.claimIdempotencyKey(RETRY, 'f'.repeat(64), LATER)).toEqual({ outcome: 'replay', status: 201, body: ANIMALS[2] });
  const kit = await store.createPet({ name: 'Kit', categoryId: 4, status: 'available' });
  expect(kit).toEqual(asStored({ id: 4, name: 'Kit', categoryId: 4, status: 'available' }, kit));
}

const dir = mkdtempSync(join(tmpdir(), 'animal-store-existing-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The schema of a SQLite file as its own text, and its bookkeeping. */
function sqliteSchema(path: string) {
  const db = new Database(path, { readonly: true });
  try {
    return {
      objects: db.prepare("SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name <> 'sqlite_sequence' ORDER BY type, name").all(),
      migrations: db.prepare('SELECT version, name FROM schema_migrations ORDER BY version').all(),
    };
  } finally {
    db.close();
  }
}

/** Every row of every table of a SQLite file, bookkeeping included. */
function sqliteRows(path: string) {
  const db = new Database(path, { readonly: true });
  try {
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all() as string[];
    return Object.fromEntries(tables.map((table) => [table, db.prepare(`SELECT * FROM "${table}" ORDER BY 1, 2`).all()])) as Rows;
  } finally {
    db.close();
  }
}

describe('a SQLite file migrated by the code before migrations were written once for both engines', () => {
  const existing = () => {
    const path = join(dir, `existing-${Math.random().toString(16).slice(2)}.db`);
    const db = new Database(path);
    db.exec(fixture('sqlite'));
    db.close();
    return path;
  };

  it('opens with only the migrations added since applied and recorded, every row as it was', async () => {
    const path = existing();
    const before = sqliteRows(path);
    const store = SqliteStore.open(path);
    migratedSince(before, sqliteRows(path));
    await store.close();
  });

  it('serves the animals, keys and Idempotency-Key records it holds, and goes on from them', async () => {
    const store = SqliteStore.open(existing());
    try {
      await servesWhatItHolds(store);
    } finally {
      await store.close();
    }
  });

  it('has, once opened, the schema and bookkeeping a new file gets', async () => {
    const fresh = join(dir, 'fresh.db');
    await SqliteStore.open(fresh).close();
    const path = existing();
    await SqliteStore.open(path).close();
    expect(sqliteSchema(fresh)).toEqual(sqliteSchema(path));
  });
});

const enabled = postgresEnabled();
afterAll(() => dropTestSchemas());

/** A PostgreSQL client for one test, ended after `work`. */
async function withClient<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** The schema of a PostgreSQL schema (columns, constraints, indexes) and its bookkeeping, with its name left out. */
const postgresSchema = (schema: string) =>
  withClient(async (client) => {
    const rows = async (sql: string, values = [schema]) => (await client.query(sql, values)).rows as unknown[];
    return {
      columns: await rows(
        `SELECT table_name, column_name, data_type, is_nullable, column_default, is_identity, identity_generation
           FROM information_schema.columns WHERE table_schema = $1 ORDER BY table_name, column_name`,
      ),
      constraints: await rows(
        `SELECT r.relname AS relation, c.conname, pg_get_constraintdef(c.oid) AS definition
           FROM pg_constraint c JOIN pg_class r ON r.oid = c.conrelid JOIN pg_namespace n ON n.oid = c.connamespace
          WHERE n.nspname = $1 ORDER BY c.conname`,
      ),
      indexes: await rows(
        `SELECT indexname, replace(indexdef, $1 || '.', '') AS definition FROM pg_indexes WHERE schemaname = $1 ORDER BY indexname`,
      ),
      migrations: await rows(`SELECT version, name FROM ${schema}.schema_migrations ORDER BY version`, []),
    };
  });

/** Every row of every table of a PostgreSQL schema, bookkeeping (and when it was applied) included. */
const postgresRows = (schema: string) =>
  withClient(async (client) => {
    const rows: Rows = {};
    for (const table of ['api_keys', 'idempotency_keys', 'pets', 'schema_migrations']) {
      rows[table] = (await client.query(`SELECT * FROM ${schema}.${table} ORDER BY 1, 2`)).rows;
    }
    return rows;
  });

describe.skipIf(!enabled)('a PostgreSQL schema migrated by the code before migrations were written once for both engines', () => {
  const existing = async () => {
    const schema = newSchemaName();
    await withClient((client) => client.query(fixture('postgres').replaceAll('__SCHEMA__', schema)));
    return schema;
  };

  it('opens with only the migrations added since applied and recorded, every row as it was', async () => {
    const schema = await existing();
    const before = await postgresRows(schema);
    const store = await PostgresStore.open({ url: TEST_DATABASE_URL, schema });
    await store.close();
    migratedSince(before, await postgresRows(schema));
  });

  it('serves the animals, keys and Idempotency-Key records it holds, and goes on from them', async () => {
    const store = await PostgresStore.open({ url: TEST_DATABASE_URL, schema: await existing() });
    try {
      await servesWhatItHolds(store);
    } finally {
      await store.close();
    }
  });

  it('has, once opened, the schema and bookkeeping a new schema gets', async () => {
    const fresh = newSchemaName();
    await (await PostgresStore.open({ url: TEST_DATABASE_URL, schema: fresh })).close();
    const schema = await existing();
    await (await PostgresStore.open({ url: TEST_DATABASE_URL, schema })).close();
    expect(await postgresSchema(fresh)).toEqual(await postgresSchema(schema));
  });
});
