import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAnimalStoreClient, type ClientClock, type DeprecationNotice } from '@animal-store/client';
import { startMockForTests, type MockServer } from '../support/mock-target.js';
import { countingFetch } from './counting-fetch.js';

// The client against the Prism mock (test/client/client.test.ts has it against the real server).

describe('the client against the Prism mock', () => {
  let mock: MockServer;
  beforeAll(async () => {
    mock = await startMockForTests();
  }, 60_000);
  afterAll(() => mock?.close());

  it('lists, adds with an Idempotency-Key, and notices the deprecation', async () => {
    const seen = countingFetch();
    const notices: DeprecationNotice[] = [];
    const client = createAnimalStoreClient({
      baseUrl: mock.url,
      apiKey: 'as_prod_mock',
      fetch: seen.fetchFn,
      onDeprecation: (n) => notices.push(n),
    });
    expect((await client.GET('/pets')).data?.length).toBe(3);
    const { data } = await client.POST('/pets', { body: { name: 'Rex', categoryId: 3 } });
    expect(data?.id).toBe(42);
    expect(seen.requests[1]!.headers.get('idempotency-key')).toMatch(/^[0-9a-f-]{36}$/);
    await client.GET('/pets/{petId}', { params: { path: { petId: 42 } } });
    expect(notices.map((n) => n.operation)).toEqual(['GET /pets/{petId}']);
  });

  it('retries a 429 after Retry-After, up to maxRetries, then returns the Error body', async () => {
    const waits: number[] = [];
    let now = 0;
    const clock: ClientClock = {
      now: () => now,
      sleep: (ms) => {
        waits.push(ms);
        now += ms;
        return Promise.resolve();
      },
    };
    const seen = countingFetch();
    const client = createAnimalStoreClient({
      baseUrl: mock.url,
      apiKey: 'as_prod_mock',
      clock,
      fetch: seen.fetchFn,
      retry: { maxRetries: 2 },
    });
    const { error, response } = await client.GET('/pets', { headers: { Prefer: 'code=429' } });
    expect(response.status).toBe(429);
    expect(error).toMatchObject({ code: 'rate_limited', status: 429 });
    expect(seen.statuses).toEqual([429, 429, 429]);
    expect(waits).toEqual([30_000, 30_000]);
  });
});
