import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createAnimalStoreClient, type Pet } from '@animal-store/client';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PostgresStore } from '../../src/service/store/postgres/postgres-store.js';
import { SqliteStore } from '../../src/service/store/sqlite/sqlite-store.js';
import { newSchemaName, postgresEnabled, TEST_DATABASE_URL } from '../support/services.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

// GET /pets/feed through the client package's followPets, over HTTP: the animals added, in order,
// resumed from the last one received (Last-Event-ID) after a break, on any instance.

/** The animals a follower has received, and a stop for it. */
function follow(baseUrl: string, apiKey: string, lastEventId?: string) {
  const received: Pet[] = [];
  const stop = new AbortController();
  const client = createAnimalStoreClient({ baseUrl, apiKey });
  const done = (async () => {
    for await (const pet of client.followPets({ signal: stop.signal, lastEventId })) received.push(pet);
  })();
  return { received, stop: async () => (stop.abort(), await done) };
}

/** Waits until `check` holds, for `ms` at most. */
async function until(check: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check() && Date.now() < end) await sleep(20);
}

const add = async (server: TestServer, key: string, name: string) => {
  const { data, response } = await server.client(key).POST('/pets', { body: { name, categoryId: 1 } });
  expect(response.status).toBe(201);
  return data!;
};

const followers: ReturnType<typeof follow>[] = [];
afterEach(async () => {
  await Promise.all(followers.splice(0).map((f) => f.stop()));
});

describe('GET /pets/feed', () => {
  let server: TestServer;
  let key: string;
  beforeAll(async () => {
    server = await startTestServer();
    key = await server.newKey('business');
    await add(server, key, 'Before');
  });
  afterAll(() => server.close());

  it('sends each animal added from now on, in id order, as the animal the service stored', async () => {
    const follower = follow(server.baseUrl, key);
    followers.push(follower);
    // The stream is open before the first animal is added: give the request its time.
    await sleep(200);
    const added = [await add(server, key, 'Rex'), await add(server, key, 'Tom'), await add(server, key, 'Kit')];
    await until(() => follower.received.length >= 3);
    expect(follower.received).toEqual(added);
  });

  it('resumes after Last-Event-ID, with every animal added since, once each', async () => {
    const first = await add(server, key, 'A');
    const later = [await add(server, key, 'B'), await add(server, key, 'C')];
    const follower = follow(server.baseUrl, key, String(first.id));
    followers.push(follower);
    await until(() => follower.received.length >= 2);
    await sleep(300);
    expect(follower.received).toEqual(later);
  });

  it('begins at the last animal for a Last-Event-ID past it (another deployment, a restored database)', async () => {
    const follower = follow(server.baseUrl, key, '999999999');
    followers.push(follower);
    await sleep(200);
    const added = await add(server, key, 'After a restore');
    await until(() => follower.received.length >= 1);
    expect(follower.received).toEqual([added]);
  });

  it('refuses a Last-Event-ID that is no id, and a request without a key, in the contract Error body', async () => {
    const bad = await fetch(`${server.baseUrl}/pets/feed`, { headers: { Authorization: `Bearer ${key}`, 'Last-Event-ID': 'x1' } });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ code: 'invalid_request', status: 400 });
    expect((await fetch(`${server.baseUrl}/pets/feed`)).status).toBe(401);
  });
});

/**
 * Runs `test` on a server of a SQLite file of its own; `restart` stops it and starts another on
 * the same file and port, as an operator's restart does, and gives it.
 */
async function withRestarts(test: (first: TestServer, restart: () => Promise<TestServer>) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'animal-store-feed-'));
  const file = join(dir, 'store.db');
  let server = await startTestServer({ store: SqliteStore.open(file) });
  try {
    await test(server, async () => {
      const { port } = server;
      await server.close();
      return (server = await startTestServer({ store: SqliteStore.open(file), port }));
    });
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('GET /pets/feed across a restart of the instance', () => {
  it('goes on from the last animal received: none lost, none repeated, those added while it was down included', () =>
    withRestarts(async (first, restart) => {
      const key = await first.newKey('business');
      const follower = follow(first.baseUrl, key);
      followers.push(follower);
      await sleep(200);
      const added = [await add(first, key, 'One'), await add(first, key, 'Two')];
      await until(() => follower.received.length >= 2);
      // The same file, the same port: the client reconnects after its wait (1 s at least), and asks from Two.
      const second = await restart();
      added.push(await add(second, key, 'While away'));
      await until(() => follower.received.length >= 3);
      added.push(await add(second, key, 'After'));
      await until(() => follower.received.length >= 4);
      await sleep(300);
      expect(follower.received.map((pet) => pet.name)).toEqual(['One', 'Two', 'While away', 'After']);
      expect(follower.received).toEqual(added);
    }));

  it('goes on from where it began when it restarts before the first animal: one added while it was down is not lost', () =>
    withRestarts(async (first, restart) => {
      const key = await first.newKey('business');
      await add(first, key, 'Before');
      const follower = follow(first.baseUrl, key);
      followers.push(follower);
      await sleep(300);
      const second = await restart();
      // Added before the client is back (it waits 1 s at least): it resumes from the stream's first event.
      const added = [await add(second, key, 'While away')];
      await until(() => follower.received.length >= 1);
      added.push(await add(second, key, 'After'));
      await until(() => follower.received.length >= 2);
      await sleep(300);
      expect(follower.received).toEqual(added);
    }));
});

describe.skipIf(!postgresEnabled())('GET /pets/feed on two instances of one PostgreSQL database', () => {
  it('gives a follower of one the animals added through the other, in id order, once each', async () => {
    const schema = newSchemaName();
    const [a, b] = [
      await startTestServer({ store: await PostgresStore.open({ url: TEST_DATABASE_URL, schema }) }),
      await startTestServer({ store: await PostgresStore.open({ url: TEST_DATABASE_URL, schema }) }),
    ];
    try {
      const key = await a.newKey('business');
      const follower = follow(a.baseUrl, key);
      followers.push(follower);
      await sleep(200);
      // Added through both at once: their ids may be given in one order and committed in another.
      const added = (await Promise.all(Array.from({ length: 20 }, (_, i) => add(i % 2 ? a : b, key, `Pet ${i}`)))).sort(
        (x, y) => x.id - y.id,
      );
      await until(() => follower.received.length >= 20);
      await sleep(300);
      expect(follower.received).toEqual(added);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('holds back an animal whose id follows one given to a transaction still open, until that one commits', async () => {
    const schema = newSchemaName();
    const server = await startTestServer({ store: await PostgresStore.open({ url: TEST_DATABASE_URL, schema }) });
    const held = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await held.connect();
    try {
      const key = await server.newKey('business');
      const follower = follow(server.baseUrl, key);
      followers.push(follower);
      await sleep(200);
      // Another instance's INSERT, given its id and not committed yet.
      await held.query(`SET search_path TO "${schema}"`);
      await held.query('BEGIN');
      await held.query("INSERT INTO pets (name, category_id, status) VALUES ('Slow', 1, 'available')");
      const fast = await add(server, key, 'Fast');
      await sleep(1500);
      expect(follower.received).toEqual([]);
      await held.query('COMMIT');
      await until(() => follower.received.length >= 2);
      expect(follower.received.map((pet) => [pet.name, pet.id])).toEqual([
        ['Slow', fast.id - 1],
        ['Fast', fast.id],
      ]);
    } finally {
      await held.end();
      await server.close();
    }
  });

  it('goes past at once an id no animal took long ago (a rolled-back INSERT), without waiting', async () => {
    const schema = newSchemaName();
    const server = await startTestServer({ store: await PostgresStore.open({ url: TEST_DATABASE_URL, schema }) });
    const direct = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await direct.connect();
    try {
      const key = await server.newKey('business');
      const before = await add(server, key, 'Before');
      await direct.query(`SET search_path TO "${schema}"`);
      // An id given and never used, then an animal added an hour ago after it.
      await direct.query('BEGIN');
      await direct.query("INSERT INTO pets (name, category_id, status) VALUES ('Rolled back', 1, 'available')");
      await direct.query('ROLLBACK');
      await direct.query(
        "INSERT INTO pets (name, category_id, status, created_at) VALUES ('Old', 1, 'available', now() - interval '1 hour')",
      );
      const follower = follow(server.baseUrl, key, String(before.id));
      followers.push(follower);
      await until(() => follower.received.length >= 1, 3000);
      expect(follower.received.map((pet) => [pet.name, pet.id])).toEqual([['Old', before.id + 2]]);
    } finally {
      await direct.end();
      await server.close();
    }
  });
});
