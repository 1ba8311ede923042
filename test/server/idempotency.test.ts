import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { handlers } from '../../generated/handlers.js';
import { PostgresStore } from '../../src/service/store/postgres/postgres-store.js';
import { SqliteStore } from '../../src/service/store/sqlite/sqlite-store.js';
import type { Store } from '../../src/service/store/store.js';
import { dropTestSchemas, newSchemaName, postgresEnabled, TEST_DATABASE_URL } from '../support/services.js';
import { startTestServer } from '../support/test-server.js';

afterAll(() => dropTestSchemas());
const engines = (['sqlite', 'postgres'] as const).filter((e) => e === 'sqlite' || postgresEnabled());

describe.each(engines)('POST /v1/pets with Idempotency-Key (%s)', (engine) => {
  const setup = async (options: Parameters<typeof startTestServer>[0] = {}) => {
    const server = await startTestServer({ engine, ...options });
    const key = await server.newKey('business');
    const post = (idempotencyKey: string | undefined, body: object | string, apiKey = key) =>
      fetch(`${server.baseUrl}/pets`, {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${apiKey}`,
          'Content-Type': 'application/json',
          ...(idempotencyKey === undefined ? {} : { 'Idempotency-Key': idempotencyKey }),
        },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });
    const count = async () => (await server.store.listPets({ limit: 1000 })).length;
    return { server, key, post, count };
  };

  it('returns the first response to a retry with the same key and body, and creates one animal', async () => {
    const { server, post, count } = await setup();
    try {
      const first = await post('order-1', { name: 'Rex', categoryId: 3 });
      expect(first.status).toBe(201);
      expect(first.headers.get('idempotent-replayed')).toBeNull();
      const created = await first.json();
      // Key order in the body does not matter.
      const retry = await post('order-1', { categoryId: 3, name: 'Rex' });
      expect(retry.status).toBe(201);
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      expect(retry.headers.get('x-ratelimit-remaining')).not.toBeNull();
      expect(await retry.json()).toEqual(created);
      expect(await count()).toBe(1);
    } finally {
      await server.close();
    }
  });

  it('refuses the same key with another body (422) and while the first is in flight (409)', async () => {
    const { server, post, count } = await setup();
    try {
      expect((await post('order-2', { name: 'Rex', categoryId: 3 })).status).toBe(201);
      const other = await post('order-2', { name: 'Rex', categoryId: 4 });
      expect(other.status).toBe(422);
      expect(await other.json()).toMatchObject({ code: 'idempotency_key_reused', status: 422 });

      const apiKeyId = (await server.store.listKeys())[0]!.id;
      await server.store.claimIdempotencyKey({ apiKeyId, key: 'order-3' }, 'someone else', {
        now: new Date(server.clock.now()),
        lockMs: 30_000,
        retentionMs: 86_400_000,
      });
      const busy = await post('order-3', { name: 'Rex', categoryId: 3 });
      expect(busy.status).toBe(409);
      expect(busy.headers.get('retry-after')).toBe('1');
      expect(await busy.json()).toMatchObject({ code: 'idempotency_key_in_use', status: 409 });
      expect(await count()).toBe(1);
    } finally {
      await server.close();
    }
  });

  it('does not use up a key on a request that fails validation', async () => {
    const { server, post, count } = await setup();
    try {
      expect((await post('order-4', { name: 'Rex' })).status).toBe(400);
      expect((await post('order-4', { name: 'Rex', categoryId: 3 })).status).toBe(201);
      expect(await count()).toBe(1);
    } finally {
      await server.close();
    }
  });

  it('scopes keys to the API key', async () => {
    const { server, post, count } = await setup();
    try {
      const otherApiKey = await server.newKey('business');
      expect((await post('shared', { name: 'Rex', categoryId: 3 })).status).toBe(201);
      const second = await post('shared', { name: 'Rex', categoryId: 3 }, otherApiKey);
      expect(second.status).toBe(201);
      expect(second.headers.get('idempotent-replayed')).toBeNull();
      expect(await count()).toBe(2);
    } finally {
      await server.close();
    }
  });

  it('forgets a key after 24 hours', async () => {
    const { server, post, count } = await setup();
    try {
      expect((await post('old', { name: 'Rex', categoryId: 3 })).status).toBe(201);
      server.clock.advance(23 * 3600_000);
      expect((await post('old', { name: 'Rex', categoryId: 3 })).headers.get('idempotent-replayed')).toBe('true');
      server.clock.advance(3600_000 + 1000);
      const fresh = await post('old', { name: 'Tom', categoryId: 3 });
      expect(fresh.status).toBe(201);
      expect(fresh.headers.get('idempotent-replayed')).toBeNull();
      expect(await count()).toBe(2);
    } finally {
      await server.close();
    }
  });

  it('releases the key of a request that failed, so the retry creates the animal', async () => {
    let failures = 1;
    // The claim is released once the failed response has gone (on PostgreSQL, on a connection
    // of its own): the retry waits for that, not for a time.
    const dir = mkdtempSync(join(tmpdir(), 'animal-store-idempotency-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const opened =
      engine === 'postgres'
        ? await PostgresStore.open({ url: TEST_DATABASE_URL, schema: newSchemaName() })
        : SqliteStore.open(join(dir, 'store.db'));
    let releasedOne = () => {};
    const released = new Promise<void>((resolve) => (releasedOne = resolve));
    const store = new Proxy(opened, {
      get(target, property) {
        if (property === 'releaseIdempotencyKey')
          return async (...args: Parameters<Store['releaseIdempotencyKey']>) => {
            await target.releaseIdempotencyKey(...args);
            releasedOne();
          };
        const value = Reflect.get(target, property, target) as unknown;
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const { server, post, count } = await setup({
      store,
      handlers: {
        ...handlers,
        createPet: async (input, context) => {
          if (failures-- > 0) throw new Error('the disk is full');
          return handlers.createPet(input, context);
        },
      },
    });
    try {
      expect((await post('order-5', { name: 'Rex', categoryId: 3 })).status).toBe(500);
      await released;
      const retry = await post('order-5', { name: 'Rex', categoryId: 3 });
      expect(retry.status).toBe(201);
      expect(retry.headers.get('idempotent-replayed')).toBeNull();
      expect(await count()).toBe(1);
    } finally {
      await server.close();
    }
  });

  it('accepts keys of 255 printable characters and refuses longer or unprintable ones', async () => {
    const { server, post } = await setup();
    try {
      expect((await post('k'.repeat(255), { name: 'Rex', categoryId: 3 })).status).toBe(201);
      for (const bad of ['k'.repeat(256), 'has space', '']) {
        const response = await post(bad, { name: 'Rex', categoryId: 3 });
        expect(response.status, JSON.stringify(bad)).toBe(400);
        expect(((await response.json()) as { details: { field: string }[] }).details[0]!.field).toBe('header.idempotency-key');
      }
    } finally {
      await server.close();
    }
  });

  it('creates exactly one animal when the same request races itself', async () => {
    const { server, post, count } = await setup();
    try {
      const responses = await Promise.all(Array.from({ length: 10 }, () => post('race', { name: 'Rex', categoryId: 3 })));
      const statuses = responses.map((r) => r.status).sort();
      expect(statuses.filter((s) => s === 201).length).toBeGreaterThanOrEqual(1);
      expect(statuses.every((s) => s === 201 || s === 409)).toBe(true);
      expect(await count()).toBe(1);
    } finally {
      await server.close();
    }
  });
});
