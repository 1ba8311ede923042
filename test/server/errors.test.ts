import { basePathsOf, majorOf, notImplemented } from 'contract-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handlers } from '../../generated/handlers.js';
import { loadSpec } from '../../src/contract/load-spec.js';
import type { Handlers } from '../../src/service/http/handler-types.js';
import { allowAt, methodNotAt } from '../support/contract-methods.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

let server: TestServer;
let key: string;
// The version's path (/v1), and the contract it is the path of.
const contract = loadSpec();
const BASE = basePathsOf(contract)[0]!;

// Handlers that misbehave, to show what the error handler makes of it.
const broken: Handlers = {
  ...handlers,
  // A failure deep inside, with internals in its message.
  listPets: async () => {
    throw new Error('SQLITE_CORRUPT: database disk image is malformed at /srv/data/store.db');
  },
  // What a stub written by `npm run generate` does.
  createPet: notImplemented('createPet', 'src/service/http/handlers/createPet.ts'),
  // A body the contract does not allow (status is not a PetStatus): the response validator stops it.
  getPet: async ({ path }) => ({ status: 200, body: { id: path.petId, name: 'Rex', categoryId: 1, status: 'lost' } as never }),
};

beforeAll(async () => {
  server = await startTestServer({ handlers: broken });
  key = await server.newKey('pro');
});
afterAll(() => server?.close());

const auth = () => ({ Authorization: `Bearer ${key}` });

describe('errors', () => {
  it('answers a thrown error with 500 internal_error and nothing internal', async () => {
    const response = await fetch(`${server.baseUrl}/pets`, { headers: auth() });
    expect(response.status).toBe(500);
    const text = await response.text();
    expect(JSON.parse(text)).toEqual({
      code: 'internal_error',
      message: 'An internal error occurred; quote the X-Request-Id when reporting it.',
      status: 500,
    });
    expect(text).not.toMatch(/SQLITE|srv|\.ts|at /);
    expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(response.headers.get('x-ratelimit-remaining')).not.toBeNull();
  });

  it('refuses to send a response that breaks the contract (500 instead)', async () => {
    const response = await fetch(`${server.baseUrl}/pets/1`, { headers: auth() });
    expect(response.status).toBe(500);
    expect(await response.json()).toMatchObject({ code: 'internal_error' });
  });

  it('answers 501 not_implemented from a stub handler', async () => {
    const response = await fetch(`${server.baseUrl}/pets`, {
      method: 'POST',
      headers: { ...auth(), 'Content-Type': 'application/json' },
      body: '{"name":"Rex","categoryId":1}',
    });
    expect(response.status).toBe(501);
    expect(await response.json()).toEqual({
      code: 'not_implemented',
      message: 'createPet is not implemented yet.',
      status: 501,
    });
  });

  it("answers an unknown path with 404 not_found, inside and outside the version's path", async () => {
    for (const path of [`${BASE}/owners`, `/v${majorOf(contract.info.version, 'openapi.yaml') + 1}/pets`, '/']) {
      const response = await fetch(`${server.origin}${path}`, { headers: auth() });
      expect(response.status, path).toBe(404);
      expect(await response.json(), path).toMatchObject({ code: 'not_found', status: 404 });
    }
  });

  it('answers an unknown path with 404 whether or not a key is sent, counted against the address, with its headers', async () => {
    let remaining: number | undefined;
    for (const path of ['/metrics', '/nope', `${BASE}/owners`]) {
      for (const headers of [{}, { Authorization: 'Bearer as_prod_not_a_key' }] as Record<string, string>[]) {
        const response = await fetch(`${server.origin}${path}`, { headers });
        expect(response.status, path).toBe(404);
        expect(await response.json(), path).toMatchObject({ code: 'not_found', status: 404 });
        expect(response.headers.get('x-ratelimit-limit'), path).not.toBeNull();
        const left = Number(response.headers.get('x-ratelimit-remaining'));
        // One address's allowance: each request takes one.
        if (remaining !== undefined) expect(left, path).toBe(remaining - 1);
        remaining = left;
      }
    }
  });

  it('answers a wrong method with 405 and the Allow header the contract gives', async () => {
    for (const [path, url] of [
      ['/pets/{petId}', '/pets/1'],
      ['/pets', '/pets'],
    ] as const) {
      const response = await fetch(`${server.baseUrl}${url}`, { method: methodNotAt(path), headers: auth() });
      expect(response.status, path).toBe(405);
      expect(response.headers.get('allow'), path).toBe(allowAt(path));
      expect(await response.json()).toMatchObject({ code: 'method_not_allowed', status: 405 });
    }
  });

  it('answers OPTIONS, which the contract does not have, with 405 after authentication', async () => {
    const anonymous = await fetch(`${server.baseUrl}/pets/1`, { method: 'OPTIONS' });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('x-ratelimit-limit')).not.toBeNull();
    for (const [path, url] of [
      ['/pets', '/pets'],
      ['/pets/{petId}', '/pets/1'],
    ] as const) {
      const response = await fetch(`${server.baseUrl}${url}`, { method: 'OPTIONS', headers: auth() });
      expect(response.status, path).toBe(405);
      expect(response.headers.get('allow'), path).toBe(allowAt(path));
      expect(response.headers.get('x-ratelimit-remaining')).not.toBeNull();
      expect(await response.json()).toMatchObject({ code: 'method_not_allowed' });
    }
  });

  it('matches paths case-sensitively, as the contract writes them', async () => {
    for (const path of [`${BASE}/pets`.toUpperCase(), `${BASE}/Pets`, `${BASE}/pets/1/`]) {
      const response = await fetch(`${server.origin}${path}`, {
        method: path === `${BASE}/pets/1/` ? methodNotAt('/pets/{petId}') : 'GET',
        headers: auth(),
      });
      expect([404, 405], path).toContain(response.status);
      const body = (await response.json()) as { code: string };
      expect(body.code, path).toMatch(/not_found|method_not_allowed/);
      if (response.status === 405) expect(response.headers.get('allow')).toBe(allowAt('/pets/{petId}'));
    }
    expect((await fetch(`${server.origin}${`${BASE}/pets`.toUpperCase()}`, { headers: auth() })).status).toBe(404);
  });

  it('answers a path with a trailing slash the contract does not write with 404', async () => {
    for (const path of [`${BASE}/pets/`, `${BASE}/pets/1/`]) {
      const response = await fetch(`${server.origin}${path}`, { headers: auth() });
      expect(response.status, path).toBe(404);
      expect(await response.json(), path).toMatchObject({ code: 'not_found' });
    }
  });

  it('answers a path that is not valid percent-encoding with 400, not 500', async () => {
    for (const path of ['/pets/%ZZ', '/pets/%']) {
      const response = await fetch(`${server.baseUrl}${path}`, { headers: auth() });
      expect(response.status, path).toBe(400);
      expect(await response.json()).toMatchObject({ code: 'invalid_request' });
    }
  });

  it('answers a body whose Content-Encoding does not match it with 400, not 500', async () => {
    for (const encoding of ['gzip', 'br', 'deflate']) {
      const response = await fetch(`${server.baseUrl}/pets`, {
        method: 'POST',
        headers: { ...auth(), 'Content-Type': 'application/json', 'Content-Encoding': encoding },
        body: '{"name":"Rex","categoryId":1}',
      });
      expect(response.status, encoding).toBe(400);
      expect(await response.json()).toMatchObject({ code: 'invalid_request', status: 400 });
    }
  });

  it('ignores a body sent with a GET instead of parsing it', async () => {
    const own = await startTestServer();
    try {
      const key = await own.newKey('pro');
      const response = await fetch(`${own.baseUrl}/pets`, {
        method: 'GET',
        headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', 'Content-Length': String(20_000) },
        body: undefined,
      });
      expect(response.status).toBe(200);
    } finally {
      await own.close();
    }
  });

  it('sends no X-Powered-By and echoes a sane X-Request-Id', async () => {
    const response = await fetch(`${server.baseUrl}/pets/1`, { headers: { ...auth(), 'X-Request-Id': 'trace-42' } });
    expect(response.headers.get('x-powered-by')).toBeNull();
    expect(response.headers.get('x-request-id')).toBe('trace-42');
    const odd = await fetch(`${server.baseUrl}/pets/1`, { headers: { ...auth(), 'X-Request-Id': 'bad id with spaces' } });
    expect(odd.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('health', () => {
  it('answers /healthz and /readyz without a key, and /readyz says 503 when the store is gone, with the reason in the log only', async () => {
    const logLines: string[] = [];
    const own = await startTestServer({ logLines });
    try {
      expect(await (await fetch(`${own.origin}/healthz`)).json()).toEqual({ status: 'ok' });
      expect((await fetch(`${own.origin}/readyz`)).status).toBe(200);
      await own.store.close();
      const response = await fetch(`${own.origin}/readyz`);
      expect(response.status).toBe(503);
      // The anonymous answer must not carry the store's error text.
      expect(await response.json()).toEqual({ status: 'unavailable' });
      expect(logLines.some((line) => line.includes('not ready') && line.includes('"reason"'))).toBe(true);
    } finally {
      await own.close();
    }
  });

  it("answers /readyz 503 until every operation's validator is compiled, in the background after listening", async () => {
    const logLines: string[] = [];
    const own = await startTestServer({ logLines, waitUntilReady: false });
    const compiled = () => logLines.some((line) => line.includes('"msg":"validators ready"'));
    try {
      const statuses: number[] = [];
      while (statuses.at(-1) !== 200) {
        // A 503 to a request sent before they were logged compiled, a 200 once they are (logged
        // as the service starts answering 200): what was logged as the request left says which.
        const loggedBefore = compiled();
        const status = (await fetch(`${own.origin}/readyz`)).status;
        expect([status, status === 200 ? compiled() : loggedBefore]).toEqual(status === 200 ? [200, true] : [503, false]);
        statuses.push(status);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      expect(statuses[0]).toBe(503);
    } finally {
      await own.close();
    }
  });
});
