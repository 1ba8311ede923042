import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handlers } from '../../generated/handlers.js';
import { loadSpec, resolveRef } from '../../src/contract/load-spec.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { BASE_PATH } from '../support/base-path.js';

let server: TestServer;
let key: string;
const DEPRECATION = {
  deprecation: '@1767225600',
  sunset: 'Thu, 05 Dec 2030 00:00:00 GMT',
  link: `<${BASE_PATH}/pets>; rel="successor-version"`,
};

beforeAll(async () => {
  server = await startTestServer();
  key = await server.newKey('pro');
});
afterAll(() => server?.close());

const get = (path: string, headers: Record<string, string> = { Authorization: `Bearer ${key}` }) =>
  fetch(`${server.baseUrl}${path}`, { headers });

function expectDeprecationHeaders(response: Response) {
  for (const [name, value] of Object.entries(DEPRECATION)) expect(response.headers.get(name), name).toBe(value);
}

describe(`GET ${BASE_PATH}/pets/{petId}`, () => {
  it('returns the animal with the Deprecation, Sunset and Link headers', async () => {
    const created = (await server.client(key).POST('/pets', { body: { name: 'Rex', categoryId: 3 } })).data!;
    const { data, response } = await server.client(key).GET('/pets/{petId}', { params: { path: { petId: created.id } } });
    expect(response.status).toBe(200);
    expect(data).toEqual(created);
    expectDeprecationHeaders(response);
  });

  it('hands the handler petId as a number, as its type says', async () => {
    let seen: unknown;
    const own = await startTestServer({
      handlers: {
        ...handlers,
        getPet: async (input, context) => {
          seen = input.path.petId;
          return handlers.getPet(input, context);
        },
      },
    });
    try {
      const k = await own.newKey('pro');
      await fetch(`${own.baseUrl}/pets/12`, { headers: { Authorization: `Bearer ${k}` } });
      expect(seen).toBe(12);
    } finally {
      await own.close();
    }
  });

  it('returns 404 with the Error body and the deprecation headers for an unknown id', async () => {
    const response = await get('/pets/9007199254740991');
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ code: 'not_found', message: 'Pet 9007199254740991 not found.', status: 404 });
    expectDeprecationHeaders(response);
  });

  it('carries the deprecation headers on a 401 too', async () => {
    const response = await get('/pets/1', {});
    expect(response.status).toBe(401);
    expectDeprecationHeaders(response);
  });

  // Malformed and out-of-range petIds are rows of test/hostile/catalogue.test.ts.

  // The service sends them on every response of getPet; the contract must declare them on
  // each, not only on its 200, 404 and 410.
  it('is declared by the contract to carry the deprecation headers on every response, as the server sends them', async () => {
    const doc = loadSpec();
    const responses = (doc.paths['/pets/{petId}']!.get as { responses: Record<string, unknown> }).responses;
    for (const [status, response] of Object.entries(responses)) {
      const headers = Object.keys(resolveRef<{ headers?: Record<string, unknown> }>(doc, response).headers ?? {});
      // Node answers 431 before the request is routed: no operation's headers, as the contract says.
      if (status === '431') expect(headers, `getPet ${status}`).not.toContain('Deprecation');
      else expect(headers, `getPet ${status}`).toEqual(expect.arrayContaining(['Deprecation', 'Sunset', 'Link']));
    }
    const invalid = await get('/pets/0');
    expect(invalid.status).toBe(400);
    expectDeprecationHeaders(invalid);
  });

  it('answers 410 gone from the sunset date on, with the headers still there', async () => {
    server.clock.set('2030-12-04T23:59:59Z');
    expect((await get('/pets/1')).status).toBe(200);
    server.clock.set('2030-12-05T00:00:00Z');
    const response = await get('/pets/1');
    expect(response.status).toBe(410);
    expect(await response.json()).toMatchObject({ code: 'gone', status: 410 });
    expectDeprecationHeaders(response);
    expect(response.headers.get('x-ratelimit-limit')).toBe('300');
    const list = await get('/pets');
    expect(list.status).toBe(200);
    expect(list.headers.get('deprecation')).toBeNull();
  });
});
