import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAnimalStoreClient, newIdempotencyKey, type ClientClock, type DeprecationNotice } from '@animal-store/client';
import { loadSpec } from '../../src/contract/load-spec.js';
import { BASE_PATH } from '../support/base-path.js';
import { startTamperingProxy } from '../support/tampering-proxy.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { countingFetch } from './counting-fetch.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.close());

/** Waits on the server's fake clock: time passes at once, and the total is kept. */
function fakeWaits(s: TestServer) {
  const waits: number[] = [];
  const clock: ClientClock = {
    now: () => s.clock.now(),
    sleep: (ms, signal) => {
      if (signal?.aborted) return Promise.reject(signal.reason as Error);
      waits.push(ms);
      s.clock.advance(ms);
      return Promise.resolve();
    },
  };
  return { clock, waits, total: () => waits.reduce((a, b) => a + b, 0) };
}

describe('the client against the real server', () => {
  it('drives a Free key past its limit with every call succeeding and no ban', async () => {
    const apiKey = await server.newKey('free');
    const waits = fakeWaits(server);
    const seen = countingFetch();
    const client = createAnimalStoreClient({ baseUrl: server.baseUrl, apiKey, clock: waits.clock, fetch: seen.fetchFn });
    for (let i = 0; i < 150; i++) {
      const { data, error } = await client.GET('/pets', { params: { query: { limit: 1 } } });
      expect(error).toBeUndefined();
      expect(data).toBeDefined();
    }
    // Ten calls at once after that: they wait together, none is sent while refused.
    const parallel = await Promise.all(Array.from({ length: 10 }, () => client.GET('/pets', { params: { query: { limit: 1 } } })));
    expect(parallel.every((r) => r.response.status === 200)).toBe(true);

    const refusals = seen.statuses.filter((s) => s === 429).length;
    const accepted = seen.statuses.filter((s) => s === 200).length;
    expect(accepted).toBe(160);
    expect(refusals).toBeLessThanOrEqual(4);
    expect(client.rateLimit).toMatchObject({ limit: 60 });
    console.log(
      `Free key, 160 calls through the client: ${accepted} accepted, ${refusals} refusals (429), 0 bans, waited ${waits.total() / 1000} s in ${waits.waits.length} waits (on the server's fake clock)`,
    );
  });

  it('creates exactly one animal when a POST is retried after its response was dropped', async () => {
    const apiKey = await server.newKey('pro');
    let dropped = 0;
    const proxy = await startTamperingProxy(server.baseUrl, (r) => {
      if (r.method === 'POST' && dropped === 0) {
        dropped++;
        return null;
      }
      return r;
    });
    try {
      const seen = countingFetch();
      const client = createAnimalStoreClient({ baseUrl: proxy.baseUrl, apiKey, fetch: seen.fetchFn, clock: fakeWaits(server).clock });
      const before = (await server.store.listPets({ limit: 1000 })).length;
      const { data, response } = await client.POST('/pets', { body: { name: 'Once', categoryId: 9 } });
      expect(response.status).toBe(201);
      expect(response.headers.get('idempotent-replayed')).toBe('true');
      expect(dropped).toBe(1);
      const stored = await server.store.listPets({ limit: 1000 });
      expect(stored.length).toBe(before + 1);
      expect(stored.filter((p) => p.name === 'Once')).toEqual([data]);
      const keys = seen.requests.map((r) => r.headers.get('idempotency-key'));
      expect(keys).toHaveLength(2);
      expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
      expect(keys[1]).toBe(keys[0]);
    } finally {
      await proxy.close();
    }
  });

  it('keeps the Idempotency-Key the caller gives', async () => {
    const apiKey = await server.newKey('pro');
    const seen = countingFetch();
    const client = createAnimalStoreClient({ baseUrl: server.baseUrl, apiKey, fetch: seen.fetchFn });
    await client.POST('/pets', { body: { name: 'Mine', categoryId: 1 }, params: { header: { 'Idempotency-Key': 'my-own-key' } } });
    expect(seen.requests[0]!.headers.get('idempotency-key')).toBe('my-own-key');
  });

  it('iterates 250 animals, each exactly once, following Link', async () => {
    const own = await startTestServer();
    try {
      for (let i = 0; i < 250; i++) await own.store.createPet({ name: `P${i}`, categoryId: 1, status: i % 5 === 0 ? 'sold' : 'available' });
      const client = createAnimalStoreClient({ baseUrl: own.baseUrl, apiKey: await own.newKey('pro') });
      const ids: number[] = [];
      for await (const pet of client.listAllPets({ pageSize: 40 })) ids.push(pet.id);
      expect(ids).toHaveLength(250);
      expect(new Set(ids).size).toBe(250);
      expect(ids).toEqual([...ids].sort((a, b) => a - b));
      const sold: number[] = [];
      for await (const pet of client.listAllPets({ status: 'sold', pageSize: 7 })) sold.push(pet.id);
      expect(sold).toHaveLength(50);
    } finally {
      await own.close();
    }
  });

  it('reports a deprecated operation once, with its sunset date', async () => {
    const apiKey = await server.newKey('pro');
    const notices: DeprecationNotice[] = [];
    const client = createAnimalStoreClient({ baseUrl: server.baseUrl, apiKey, onDeprecation: (n) => notices.push(n) });
    const { data } = await client.POST('/pets', { body: { name: 'Old', categoryId: 1 } });
    await client.GET('/pets/{petId}', { params: { path: { petId: data!.id } } });
    await client.GET('/pets/{petId}', { params: { path: { petId: data!.id } } });
    expect(notices).toEqual([
      {
        operation: 'GET /pets/{petId}',
        deprecation: '@1767225600',
        sunset: new Date('2030-12-05T00:00:00Z'),
        link: `<${BASE_PATH}/pets>; rel="successor-version"`,
      },
    ]);
  });

  it('warns through process.emitWarning by default', async () => {
    const apiKey = await server.newKey('pro');
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on('warning', onWarning);
    try {
      const client = createAnimalStoreClient({ baseUrl: server.baseUrl, apiKey });
      await client.GET('/pets/{petId}', { params: { path: { petId: 1 } } });
      await new Promise((r) => setImmediate(r));
      const ours = warnings.filter((w) => (w as Error & { code?: string }).code === 'ANIMAL_STORE_DEPRECATED');
      expect(ours).toHaveLength(1);
      expect(ours[0]!.name).toBe('DeprecationWarning');
      expect(ours[0]!.message).toContain('GET /pets/{petId} is deprecated and will be removed on Thu, 05 Dec 2030 00:00:00 GMT');
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('gives up at once when Retry-After ends past the deadline, and returns the typed error', async () => {
    const apiKey = await server.newKey('enterprise', { perMinute: 1, perDay: 100 });
    const waits = fakeWaits(server);
    const client = createAnimalStoreClient({ baseUrl: server.baseUrl, apiKey, clock: waits.clock, retry: { deadlineMs: 1000 } });
    await client.GET('/pets');
    const { data, error, response } = await client.GET('/pets');
    expect(data).toBeUndefined();
    expect(response.status).toBe(429);
    expect(error?.code).toBe('rate_limited');
    expect(waits.waits).toEqual([]);
    expect(client.rateLimit).toMatchObject({ limit: 1, remaining: 0 });
  });

  it('stops waiting when the call is aborted', async () => {
    const apiKey = await server.newKey('enterprise', { perMinute: 1, perDay: 100 });
    const controller = new AbortController();
    // Aborted once the 429 has come, while the client waits out its Retry-After on real timers.
    const client = createAnimalStoreClient({
      baseUrl: server.baseUrl,
      apiKey,
      fetch: async (request) => {
        const response = await fetch(request);
        if (response.status === 429) setTimeout(() => controller.abort(new Error('user gave up')), 10);
        return response;
      },
    });
    await client.GET('/pets');
    const started = Date.now();
    await expect(client.GET('/pets', { signal: controller.signal })).rejects.toThrow('user gave up');
    // The wait it stopped was Retry-After, 50 s (the fake clock is 10 s into its minute): 25 s
    // tells the two apart and leaves a loaded machine 25 s for what takes milliseconds.
    expect(Date.now() - started).toBeLessThan(25_000);
  });

  it("resolves environments to the contract's servers", async () => {
    const urls: string[] = [];
    const capture = (request: Request) => {
      urls.push(request.url);
      return Promise.resolve(new Response('[]', { status: 200, headers: { 'Content-Type': 'application/json' } }));
    };
    await createAnimalStoreClient({ environment: 'staging', apiKey: 'as_stag_x', fetch: capture }).GET('/pets');
    await createAnimalStoreClient({ apiKey: 'as_prod_x', fetch: capture }).GET('/pets');
    const server = (name: string) => loadSpec().servers!.find((s) => s.description?.toLowerCase() === name)!.url;
    expect(urls).toEqual([`${server('staging')}/pets`, `${server('production')}/pets`]);
  });
});

describe('newIdempotencyKey', () => {
  it('makes version 4 UUIDs with getRandomValues alone, as in a page outside a secure context', () => {
    const keys = new Set<string>();
    try {
      // What a page served over plain http (not localhost) has: no randomUUID. An own property
      // hides Crypto.prototype's until it is deleted.
      Object.defineProperty(globalThis.crypto, 'randomUUID', { value: undefined, configurable: true });
      for (let i = 0; i < 1000; i++) keys.add(newIdempotencyKey());
    } finally {
      Reflect.deleteProperty(globalThis.crypto, 'randomUUID');
    }
    expect(globalThis.crypto.randomUUID()).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys.size).toBe(1000);
    for (const key of keys) expect(key).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});
