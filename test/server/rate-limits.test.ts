import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/test-server.js';

let server: TestServer;
beforeEach(async () => {
  server = await startTestServer({ anonymousLimits: { perMinute: 5, perDay: 100 }, ban: { banAfterRefusals: 10, banSeconds: 600 } });
});
afterEach(() => server?.close());

const nowSec = () => Math.floor(server.clock.now() / 1000);

async function call(key?: string, path = '/pets') {
  const response = await fetch(`${server.baseUrl}${path}`, { headers: key ? { Authorization: `Bearer ${key}` } : {} });
  const body = (await response.json()) as { code?: string; message?: string };
  const header = (name: string) => response.headers.get(name);
  return {
    status: response.status,
    code: body.code,
    message: body.message,
    limit: Number(header('x-ratelimit-limit')),
    remaining: Number(header('x-ratelimit-remaining')),
    reset: Number(header('x-ratelimit-reset')),
    retryAfter: header('retry-after') === null ? null : Number(header('retry-after')),
  };
}

describe('rate limits per key', () => {
  it('lets a Free key make 60 requests in a minute and refuses the 61st with Retry-After', async () => {
    const key = await server.newKey('free');
    const minuteEnd = (Math.floor(nowSec() / 60) + 1) * 60;
    for (let i = 1; i <= 60; i++) {
      const r = await call(key);
      expect(r.status).toBe(200);
      expect(r).toMatchObject({ limit: 60, remaining: 60 - i, reset: minuteEnd, retryAfter: null });
    }
    const refused = await call(key);
    expect(refused).toMatchObject({
      status: 429,
      code: 'rate_limited',
      limit: 60,
      remaining: 0,
      reset: minuteEnd,
      retryAfter: minuteEnd - nowSec(),
    });
    expect(refused.message).toBe(`Rate limit of 60 requests per minute exceeded; retry after ${minuteEnd - nowSec()} seconds.`);
  });

  it('never bans a client that waits as Retry-After says', async () => {
    const key = await server.newKey('free');
    let accepted = 0;
    let refused = 0;
    while (refused < 5) {
      const r = await call(key);
      expect(r.code).not.toBe('key_temporarily_banned');
      if (r.status === 200) accepted++;
      else {
        expect(r.status).toBe(429);
        refused++;
        server.clock.advance(r.retryAfter! * 1000);
      }
    }
    // Five minutes' worth: 60 accepted and one refusal in each, and never a ban.
    expect(accepted).toBe(5 * 60);
    expect((await call(key)).status).toBe(200);
  });

  it('bans a key that keeps sending while refused, for the ban period, then lets it back', async () => {
    const key = await server.newKey('free');
    for (let i = 0; i < 60; i++) await call(key);
    // Told to wait by the first refusal; requests already on their way (the same second) are
    // not held against it. Two seconds on, it is ignoring Retry-After.
    expect((await call(key)).code).toBe('rate_limited');
    for (let i = 0; i < 20; i++) expect((await call(key)).code).toBe('rate_limited');
    server.clock.advance(2_000);
    const codes: string[] = [];
    for (let i = 0; i < 11; i++) codes.push((await call(key)).code!);
    expect(codes.slice(0, 10)).toEqual(Array(10).fill('rate_limited'));
    expect(codes[10]).toBe('key_temporarily_banned');

    server.clock.advance(58_000);
    const banned = await call(key);
    expect(banned).toMatchObject({ status: 429, code: 'key_temporarily_banned', retryAfter: 542, remaining: 0 });
    expect(banned.message).toContain('This API key kept sending requests while refused and is banned for 542 more seconds.');

    const other = await server.newKey('free');
    expect((await call(other)).status).toBe(200);

    server.clock.advance(542_000);
    expect((await call(key)).status).toBe(200);
  });

  it('does not ban again a client that waits out a ban while its day is used up', async () => {
    // The day runs out in the first minute; from the second minute on, the day refuses.
    const key = await server.newKey('enterprise', { perMinute: 20, perDay: 20 });
    for (let i = 0; i < 20; i++) expect((await call(key)).status).toBe(200);
    server.clock.advance(60_000);
    expect(await call(key)).toMatchObject({ code: 'rate_limited', limit: 20, reset: (Math.floor(nowSec() / 86_400) + 1) * 86_400 });
    server.clock.advance(2_000);
    let last = await call(key);
    for (let i = 1; i < 11; i++) last = await call(key);
    expect(last.code).toBe('key_temporarily_banned');
    // It waits out the ban, as Retry-After said, then once more for the day, as the next
    // Retry-After says: never banned again.
    server.clock.advance(last.retryAfter! * 1000);
    const after = await call(key);
    expect(after).toMatchObject({ status: 429, code: 'rate_limited' });
    server.clock.advance(after.retryAfter! * 1000);
    expect((await call(key)).status).toBe(200);
  });

  it('does not ban a client whose parallel requests were in flight when it was first refused', async () => {
    const key = await server.newKey('free');
    const responses = await Promise.all(Array.from({ length: 100 }, () => call(key)));
    const codes = responses.map((r) => r.code ?? String(r.status));
    expect(codes.filter((c) => c === '200')).toHaveLength(60);
    expect(codes.filter((c) => c === 'rate_limited')).toHaveLength(40);
  });

  // Found by npm run load: the grace was counted in whole seconds, so it could be as short as 1.001 s.
  it('does not count refusals for a full 2 s after the first, even when that one came late in its second', async () => {
    const key = await server.newKey('enterprise', { perMinute: 1, perDay: 100 });
    server.clock.set('2026-06-01T12:00:10.900Z');
    expect((await call(key)).status).toBe(200);
    expect((await call(key)).code).toBe('rate_limited');
    // 1.2 s after the first refusal, in the second after next: requests still on their way.
    server.clock.set('2026-06-01T12:00:12.100Z');
    for (let i = 0; i < 15; i++) expect((await call(key)).code).toBe('rate_limited');
    // After the grace they count: the eleventh bans.
    server.clock.set('2026-06-01T12:00:12.950Z');
    for (let i = 0; i < 10; i++) expect((await call(key)).code).toBe('rate_limited');
    expect((await call(key)).code).toBe('key_temporarily_banned');
  });

  it('does not use up the day when the minute window refuses, and reports the window closest to running out', async () => {
    const key = await server.newKey('enterprise', { perMinute: 2, perDay: 3 });
    expect(await call(key)).toMatchObject({ status: 200, limit: 2, remaining: 1 });
    expect(await call(key)).toMatchObject({ status: 200, limit: 2, remaining: 0 });
    expect(await call(key)).toMatchObject({ status: 429, code: 'rate_limited', limit: 2 });
    server.clock.advance(60_000);
    const dayEnd = (Math.floor(nowSec() / 86_400) + 1) * 86_400;
    // The refused request did not count against the day: one request of three is left.
    expect(await call(key)).toMatchObject({ status: 200, limit: 3, remaining: 0, reset: dayEnd });
    server.clock.advance(60_000);
    const refused = await call(key);
    expect(refused).toMatchObject({
      status: 429,
      code: 'rate_limited',
      limit: 3,
      remaining: 0,
      reset: dayEnd,
      retryAfter: dayEnd - nowSec(),
    });
    expect(refused.message).toContain('per day');
  });

  it('counts every request with a valid key, whatever its outcome, and puts the headers on errors', async () => {
    const key = await server.newKey('free');
    expect(await call(key, '/pets/999')).toMatchObject({ status: 404, limit: 60, remaining: 59 });
    expect(await call(key, '/pets?limit=0')).toMatchObject({ status: 400, limit: 60, remaining: 58 });
    expect(await call(key, '/nowhere')).toMatchObject({ status: 404, limit: 60, remaining: 57 });
  });

  it('keeps each key to its own plan', async () => {
    const pro = await server.newKey('pro');
    const business = await server.newKey('business');
    expect(await call(pro)).toMatchObject({ limit: 300, remaining: 299 });
    expect(await call(business)).toMatchObject({ limit: 1000, remaining: 999 });
  });
});

describe('rate limits without a valid key', () => {
  it("limits requests per client address and answers with that limiter's headers", async () => {
    for (let i = 1; i <= 5; i++) {
      expect(await call(undefined)).toMatchObject({ status: 401, limit: 5, remaining: 5 - i });
    }
    expect(await call(undefined)).toMatchObject({ status: 429, code: 'rate_limited', limit: 5, remaining: 0 });
    // Guessing keys counts against the same address.
    expect(await call('as_prod_guess')).toMatchObject({ status: 429, code: 'rate_limited' });
    server.clock.advance(2_000);
    for (let i = 0; i < 10; i++) await call(undefined);
    const banned = await call(undefined);
    expect(banned.code).toBe('key_temporarily_banned');
    expect(banned.message).toContain('This client address kept sending requests');
    const key = await server.newKey('free');
    expect((await call(key)).status).toBe(200);
  });
});
