import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSpec } from '../../src/contract/load-spec.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { asStored } from '../support/stored-animal.js';

let server: TestServer;
let key: string;

beforeAll(async () => {
  server = await startTestServer();
  key = await server.newKey('business');
});
afterAll(() => server?.close());

const post = (body: string, contentType = 'application/json') =>
  fetch(`${server.baseUrl}/pets`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': contentType },
    body,
  });

describe('POST /pets', () => {
  it('returns 201 with the stored animal, status available by default', async () => {
    const { data, response } = await server.client(key).POST('/pets', { body: { name: 'Rex', categoryId: 3 } });
    expect(response.status).toBe(201);
    expect(data).toEqual(asStored({ id: expect.any(Number), name: 'Rex', categoryId: 3, status: 'available' }, data!));
    expect(await server.store.getPet(data!.id)).toEqual(data);
  });

  it('keeps the status given, and categoryId up to 2^53-1 exactly', async () => {
    const { data } = await server.client(key).POST('/pets', { body: { name: 'Tom', categoryId: 9007199254740991, status: 'sold' } });
    expect(data).toMatchObject({ name: 'Tom', categoryId: 9007199254740991, status: 'sold' });
  });

  it('gives each animal a new id', async () => {
    const ids = new Set<number>();
    for (let i = 0; i < 5; i++) ids.add((await server.client(key).POST('/pets', { body: { name: `N${i}`, categoryId: 1 } })).data!.id);
    expect(ids.size).toBe(5);
  });

  // Refused bodies (missing, malformed, out of range, duplicate keys, too large, not JSON) are
  // rows of test/hostile/catalogue.test.ts.

  it('names at most 10 fields in a 400, as the contract says', async () => {
    const extra = Array.from({ length: 60 }, (_, i) => `"k${i}":1`).join(',');
    const response = await post(`{${extra},"name":"Rex","categoryId":3}`);
    expect(response.status).toBe(400);
    expect(((await response.json()) as { details: unknown[] }).details).toHaveLength(10);
    const error = loadSpec().components!.schemas!.Error as { properties: { details: { maxItems?: number } } };
    expect(error.properties.details.maxItems).toBe(10);
  });

  it('keeps numbers inside strings out of the exactness check', async () => {
    const { data, response } = await server.client(key).POST('/pets', { body: { name: 'Agent 1e3 / 3.0', categoryId: 7 } });
    expect(response.status).toBe(201);
    expect(data?.name).toBe('Agent 1e3 / 3.0');
  });

  it('keeps names of any script and emoji (surrogate pairs) exactly', async () => {
    const { data, response } = await server.client(key).POST('/pets', { body: { name: 'Rex 🐕 中文 é', categoryId: 3 } });
    expect(response.status).toBe(201);
    expect(data?.name).toBe('Rex 🐕 中文 é');
    expect((await server.store.getPet(data!.id))?.name).toBe('Rex 🐕 中文 é');
  });

  it('takes a gzip-encoded body, checked like any other once inflated', async () => {
    const response = await fetch(`${server.baseUrl}/pets`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json; charset=utf-8', 'Content-Encoding': 'gzip' },
      body: gzipSync('{"name":"Zipped","categoryId":4}'),
    });
    expect(response.status).toBe(201);
    expect(await response.json()).toMatchObject({ name: 'Zipped', categoryId: 4 });
  });
});
