import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { handlers } from '../../generated/handlers.js';
import { IDEMPOTENCY_TIMING } from '../../src/service/store/idempotency.js';
import { PostgresStore } from '../../src/service/store/postgres/postgres-store.js';
import { SqliteStore } from '../../src/service/store/sqlite/sqlite-store.js';
import type { Store } from '../../src/service/store/store.js';
import { dropTestSchemas, newSchemaName, postgresEnabled, TEST_DATABASE_URL } from '../support/services.js';
import { ADDED, withAddedOperation } from '../support/added-operation.js';
import { startTestServer } from '../support/test-server.js';

afterAll(() => dropTestSchemas());
const engines = (['sqlite', 'postgres'] as const).filter((e) => e === 'sqlite' || postgresEnabled());

describe.each(engines)('POST /pets with Idempotency-Key (%s)', (engine) => {
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

      // Another instance's request holds order-3: the 409 says how long its claim has left, rounded up.
      const apiKeyId = (await server.store.listKeys())[0]!.id;
      await server.store.claimIdempotencyKey({ apiKeyId, key: 'order-3' }, 'someone else', {
        now: new Date(server.clock.now()),
        ...IDEMPOTENCY_TIMING,
      });
      for (const [advanceMs, retryAfter] of [
        [0, '3'],
        [1, '3'],
        [1199, '2'],
        [800, '1'],
        [999, '1'],
      ] as const) {
        server.clock.advance(advanceMs);
        const busy = await post('order-3', { name: 'Rex', categoryId: 3 });
        expect(busy.status).toBe(409);
        expect(busy.headers.get('retry-after')).toBe(retryAfter);
        expect(await busy.json()).toMatchObject({ code: 'idempotency_key_in_use', status: 409 });
      }
      expect(await count()).toBe(1);
      // Never renewed (that instance died): the lock time after the claim, the key is free.
      server.clock.advance(1);
      expect((await post('order-3', { name: 'Rex', categoryId: 3 })).status).toBe(201);
      expect(await count()).toBe(2);
    } finally {
      await server.close();
    }
  });

  /** Handlers whose createPet, on its first call, says it was `entered` and waits until `release()`. */
  const heldOnce = () => {
    let release!: () => void;
    let entered!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const inside = new Promise<void>((resolve) => (entered = resolve));
    let calls = 0;
    const createPet: typeof handlers.createPet = async (input, context) => {
      if (calls++ === 0) {
        entered();
        await gate;
      }
      return handlers.createPet(input, context);
    };
    return { handlers: { ...handlers, createPet }, entered: inside, release };
  };

  it('renews the claim of a request still running, so that no retry takes it over however long it runs', async () => {
    const held = heldOnce();
    const { server, post, count } = await setup({ handlers: held.handlers });
    try {
      const first = post('long', { name: 'Rex', categoryId: 3 });
      // Awaited below; should the test fail first, closing the server ends it, and that is no further failure.
      first.catch(() => undefined);
      await held.entered;
      const retryAfter = async () => {
        const busy = await post('long', { name: 'Rex', categoryId: 3 });
        expect(busy.status).toBe(409);
        return busy.headers.get('retry-after');
      };
      /** Retries until the 409 says `seconds`: the claim was renewed at the clock's time. Renewals come every CLAIM_RENEWAL_MS of real time; 5 s leaves room for a busy machine. */
      const renewedBy = async (seconds: string) => {
        const deadline = performance.now() + 5000;
        while ((await retryAfter()) !== seconds) {
          expect(performance.now(), `no renewal made the claim's time left ${seconds} s within 5 s`).toBeLessThan(deadline);
          await new Promise((r) => setTimeout(r, 50));
        }
      };
      await renewedBy('3');
      // Twice past the lock time of the first claim, each time renewed: still the first request's.
      for (let i = 0; i < 2; i++) {
        server.clock.advance(2500);
        expect(await retryAfter()).toBe('1');
        await renewedBy('3');
      }
      held.release();
      expect((await first).status).toBe(201);
      const retry = await post('long', { name: 'Rex', categoryId: 3 });
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      expect(await count()).toBe(1);
    } finally {
      held.release();
      await server.close();
    }
  });

  it('answers 409 and adds nothing when its claim was taken over while it stalled', async () => {
    const held = heldOnce();
    const { server, post, count } = await setup({ handlers: held.handlers });
    try {
      const first = post('stalled', { name: 'Rex', categoryId: 3 });
      // Awaited below; should the test fail first, closing the server ends it, and that is no further failure.
      first.catch(() => undefined);
      await held.entered;
      const apiKeyId = (await server.store.listKeys())[0]!.id;
      const scope = { apiKeyId, key: 'stalled' };
      const claimAt = (ms: number) =>
        server.store.claimIdempotencyKey(scope, 'another instance', { now: new Date(ms), ...IDEMPOTENCY_TIMING });
      expect((await claimAt(server.clock.now())).outcome).toBe('in_flight');
      // Another instance, the lock time later by its clock: this one's renewals (at this clock's time) have not kept the claim.
      const lockLater = server.clock.now() + IDEMPOTENCY_TIMING.lockMs;
      expect((await claimAt(lockLater)).outcome).toBe('claimed');
      held.release();
      const answer = await first;
      expect(answer.status).toBe(409);
      // The new holder's claim is at most the lock time old.
      expect(answer.headers.get('retry-after')).toBe('3');
      expect(await count()).toBe(0);
      // Its end released nothing of the claim that replaced its own.
      expect(await claimAt(lockLater + 1)).toMatchObject({ outcome: 'in_flight' });
    } finally {
      held.release();
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
      for (const [bad, message] of [
        ['k'.repeat(256), 'must be at most 255 characters'],
        ['has space', 'must be printable ASCII characters, without spaces'],
        ['', 'must not be empty'],
      ] as const) {
        const response = await post(bad, { name: 'Rex', categoryId: 3 });
        expect(response.status, JSON.stringify(bad)).toBe(400);
        expect(((await response.json()) as { details: unknown[] }).details).toEqual([{ field: 'header.idempotency-key', message }]);
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

describe.each(engines)('Idempotency-Key on an operation other than createPet (%s)', (engine) => {
  // An operation the contract gains that declares the header, whose handler writes nothing of the
  // key: its answer is recorded under the key before it is sent, and a retry gets it again.
  it('answers a retry with the recorded answer without calling the handler again, and refuses another body', async () => {
    const contract = withAddedOperation();
    const added = contract.paths[ADDED.path] as Record<string, Record<string, unknown>>;
    const removal = added[ADDED.method]!;
    removal.parameters = [...(removal.parameters as unknown[]), { $ref: '#/components/parameters/IdempotencyKey' }];
    removal.responses = {
      ...(removal.responses as object),
      '409': { $ref: '#/components/responses/IdempotencyKeyInUse' },
      '422': { $ref: '#/components/responses/IdempotencyKeyReused' },
    };
    let calls = 0;
    const logLines: string[] = [];
    const server = await startTestServer({
      engine,
      logLines,
      spec: contract,
      handlers: { ...handlers, [ADDED.operationId]: () => (calls++, { status: 204 }) } as typeof handlers,
    });
    try {
      const key = await server.newKey('business');
      const remove = (petId: number, idempotencyKey: string) =>
        fetch(`${server.baseUrl}${ADDED.path.replace('{petId}', String(petId))}`, {
          method: ADDED.method.toUpperCase(),
          headers: { Authorization: `Bearer ${key}`, 'Idempotency-Key': idempotencyKey },
        });
      const first = await remove(7, 'removal-1');
      expect(first.status).toBe(204);
      expect(first.headers.get('idempotent-replayed')).toBeNull();
      const retry = await remove(7, 'removal-1');
      expect(retry.status, logLines.filter((l) => l.includes('"level":50')).join('\n')).toBe(204);
      expect(await retry.text()).toBe('');
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      expect(calls).toBe(1);
      // The same key on another animal is another request.
      expect((await remove(8, 'removal-1')).status).toBe(422);
      expect(calls).toBe(1);
    } finally {
      await server.close();
    }
  });
});
