import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allowAt, methodNotAt } from '../support/contract-methods.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

let server: TestServer;
let key: string;
beforeAll(async () => {
  server = await startTestServer();
  key = await server.newKey('pro');
});
afterAll(() => server?.close());

describe('HEAD', () => {
  it('answers wherever GET works: the same status and headers, no body', async () => {
    const pet = await server.store.createPet({ name: 'Tom', categoryId: 1, status: 'available' });
    const auth = { Authorization: `Bearer ${key}` };
    for (const [path, status] of [
      ['/pets?limit=1', 200],
      [`/pets/${pet.id}`, 200],
      ['/pets/999999', 404],
      ['/pets?colour=red', 400],
    ] as const) {
      const get = await fetch(`${server.baseUrl}${path}`, { headers: auth });
      const head = await fetch(`${server.baseUrl}${path}`, { method: 'HEAD', headers: auth });
      expect(get.status, path).toBe(status);
      expect(head.status, path).toBe(status);
      for (const name of ['content-type', 'content-length', 'x-ratelimit-limit', 'deprecation', 'sunset', 'link']) {
        expect(head.headers.get(name), `${path} ${name}`).toBe(get.headers.get(name));
      }
      expect(await head.text(), path).toBe('');
      expect((await get.text()).length, path).toBe(Number(get.headers.get('content-length')));
    }
    // Counted like the GET it stands for.
    const first = Number((await fetch(`${server.baseUrl}/pets`, { method: 'HEAD', headers: auth })).headers.get('x-ratelimit-remaining'));
    const second = Number((await fetch(`${server.baseUrl}/pets`, { method: 'HEAD', headers: auth })).headers.get('x-ratelimit-remaining'));
    expect(second).toBe(first - 1);
  });

  it('is not offered where there is no GET', async () => {
    const response = await fetch(`${server.baseUrl}/pets`, { method: methodNotAt('/pets'), headers: { Authorization: `Bearer ${key}` } });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe(allowAt('/pets'));
  });
});
