import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKey } from '../../src/service/keys/key-format.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

let server: TestServer;
let key: string;

beforeAll(async () => {
  // Room for many unauthenticated requests from one address: this file is about 401s.
  server = await startTestServer({ anonymousLimits: { perMinute: 1000, perDay: 10_000 } });
  key = await server.newKey('pro');
});
afterAll(() => server?.close());

const list = (headers: Record<string, string>, query = '') => fetch(`${server.baseUrl}/pets${query}`, { headers });

async function expect401(response: Response, reason: RegExp) {
  expect(response.status).toBe(401);
  expect(response.headers.get('www-authenticate')).toBe('Bearer realm="animal-store"');
  const body = (await response.json()) as { code: string; message: string; status: number };
  expect(body).toMatchObject({ code: 'unauthorized', status: 401 });
  expect(body.message).toMatch(reason);
  for (const h of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) expect(response.headers.get(h), h).not.toBeNull();
}

// More malformed Authorization headers (two of them, the key in the query string, 20 KB, …)
// are rows of test/hostile/catalogue.test.ts.
describe('authentication on every operation', () => {
  it('accepts a valid key', async () => {
    expect((await list({ Authorization: `Bearer ${key}` })).status).toBe(200);
  });

  it('refuses a request without Authorization', async () => {
    await expect401(await list({}), /no Authorization header/);
  });

  it.each([
    ['an empty header', '', /not "Bearer <credentials>"/],
    ['Basic', 'Basic dXNlcjpwYXNz', /not "Bearer <credentials>"/],
    ['Bearer without a key', 'Bearer ', /not "Bearer <credentials>"/],
    ['a malformed key', 'Bearer hello', /malformed/],
    ['a 10 KB key', `Bearer ${'a'.repeat(10_000)}`, /malformed/],
  ])('refuses %s', async (_case, header, reason) => {
    await expect401(await list({ Authorization: header.replace('KEY', key) }), reason);
  });

  it('refuses a key whose checksum is wrong, without a lookup, as a mistyped key', async () => {
    const last = key.at(-1) === 'A' ? 'B' : 'A';
    await expect401(await list({ Authorization: `Bearer ${key.slice(0, -1)}${last}` }), /the key is malformed or mistyped/);
  });

  it('refuses a well-formed key that was never issued', async () => {
    await expect401(await list({ Authorization: `Bearer ${generateKey('production').key}` }), /the key is unknown or revoked/);
  });

  it('refuses a staging key on production, and a production key on staging', async () => {
    const stagingKey = await server.newKey('pro', undefined, 'staging');
    await expect401(await list({ Authorization: `Bearer ${stagingKey}` }), /for staging, this is production/);
    const staging = await startTestServer({ environment: 'staging' });
    try {
      const prodKey = await staging.newKey('pro', undefined, 'production');
      await expect401(
        await fetch(`${staging.baseUrl}/pets`, { headers: { Authorization: `Bearer ${prodKey}` } }),
        /for production, this is staging/,
      );
      const ownKey = await staging.newKey('pro');
      expect(ownKey.startsWith('as_stag_')).toBe(true);
      expect((await fetch(`${staging.baseUrl}/pets`, { headers: { Authorization: `Bearer ${ownKey}` } })).status).toBe(200);
    } finally {
      await staging.close();
    }
  });

  it('refuses a revoked key from the next request on', async () => {
    const revocable = await server.newKey('free');
    expect((await list({ Authorization: `Bearer ${revocable}` })).status).toBe(200);
    const record = (await server.store.listKeys()).find((k) => revocable.startsWith(k.displayPrefix) && k.plan === 'free')!;
    await server.store.revokeKey(record.id, new Date());
    await expect401(await list({ Authorization: `Bearer ${revocable}` }), /the key is unknown or revoked/);
  });

  it('answers a revoked key and one never issued alike, so a 401 never tells whether a key existed', async () => {
    const revocable = await server.newKey('free');
    const record = (await server.store.listKeys()).find((k) => revocable.startsWith(k.displayPrefix) && k.plan === 'free')!;
    await server.store.revokeKey(record.id, new Date());
    const answer = async (token: string) => {
      const response = await list({ Authorization: `Bearer ${token}` });
      return { status: response.status, challenge: response.headers.get('www-authenticate'), body: await response.text() };
    };
    expect(await answer(revocable)).toEqual(await answer(generateKey('production').key));
  });

  it('accepts the scheme in any case (RFC 9110, section 11.1), but not a changed key', async () => {
    expect((await list({ Authorization: `bearer ${key}` })).status).toBe(200);
    expect((await list({ Authorization: `BEARER ${key}` })).status).toBe(200);
    await expect401(await list({ Authorization: `Bearer ${key.toLowerCase()}` }), /malformed or mistyped/);
  });

  it('protects every operation', async () => {
    expect(
      (
        await fetch(`${server.baseUrl}/pets`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: '{"name":"Rex","categoryId":1}',
        })
      ).status,
    ).toBe(401);
    expect((await fetch(`${server.baseUrl}/pets/1`)).status).toBe(401);
    expect((await server.store.listPets({ limit: 10 })).length).toBe(0);
  });
});
