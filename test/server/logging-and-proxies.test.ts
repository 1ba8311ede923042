import { afterEach, describe, expect, it, vi } from 'vitest';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { BASE_PATH } from '../support/base-path.js';

let server: TestServer | undefined;
afterEach(() => server?.close());

/** Longest wait for a request's log line, written once its response has finished: milliseconds, even on a busy machine. */
const LINES_MS = { timeout: 20_000, interval: 10 };

describe('request logs', () => {
  it("logs one JSON line per request with its id, the caller's W3C trace id, status and key id, and never the key", async () => {
    const lines: string[] = [];
    server = await startTestServer({ logLines: lines });
    const key = await server.newKey('pro');
    const trace = '4bf92f3577b34da6a3ce929d0e0e4736';
    await fetch(`${server.baseUrl}/pets`, {
      headers: { Authorization: `Bearer ${key}`, 'X-Request-Id': 'req-1', traceparent: `00-${trace}-00f067aa0ba902b7-01` },
    });
    // Malformed traceparents (an all-zero trace id; version 00 with a fifth field) are not logged.
    await fetch(`${server.baseUrl}/pets`, {
      headers: {
        // Another key: its last character changed (to x, or to y if it was x).
        Authorization: `Bearer ${key.slice(0, -1)}${key.endsWith('x') ? 'y' : 'x'}`,
        'X-Request-Id': 'req-2',
        traceparent: `00-${'0'.repeat(32)}-00f067aa0ba902b7-01`,
      },
    });
    await fetch(`${server.baseUrl}/pets`, {
      headers: { Authorization: `Bearer ${key}`, 'X-Request-Id': 'req-3', traceparent: `00-${trace}-00f067aa0ba902b7-01-extra` },
    });
    // A request's line is written when its response has finished, which may be after the
    // client has read the response, and not always in the order of the requests: wait for the
    // three lines and find each by its request id. They come within milliseconds; LINES_MS only
    // bounds the wait for one that never comes.
    const requestLines = () => lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((e) => e.msg === 'request');
    await vi.waitFor(() => expect(requestLines()).toHaveLength(3), LINES_MS);
    const entries = ['req-1', 'req-2', 'req-3'].map((id) => requestLines().find((e) => e.requestId === id));
    expect(entries[0]).toMatchObject({
      requestId: 'req-1',
      traceId: trace,
      method: 'GET',
      path: `${BASE_PATH}/pets`,
      status: 200,
      keyId: expect.stringMatching(/^key_/),
    });
    expect(entries[1]).toMatchObject({ status: 401 });
    expect(entries[1]!.traceId).toBeUndefined();
    expect(entries[2]).toMatchObject({ status: 200 });
    expect(entries[2]!.traceId).toBeUndefined();
    expect(lines.join('\n')).not.toContain(key.slice(8, 30));
    expect(lines.join('\n')).not.toMatch(/authorization/i);
  });
});

describe('what one client can make the service log', () => {
  it('logs the first 20 refusals of an address per 10 seconds, then how many it left out, and every other line', async () => {
    const lines: string[] = [];
    server = await startTestServer({ logLines: lines, anonymousLimits: { perMinute: 5, perDay: 1000 } });
    const key = await server.newKey('business');
    // 401s, then 429s and the ban's 429s: all refused, from one address.
    for (let i = 0; i < 100; i++) await (await fetch(`${server.baseUrl}/pets`)).arrayBuffer();
    for (let i = 0; i < 5; i++)
      await (await fetch(`${server.baseUrl}/pets?limit=1`, { headers: { Authorization: `Bearer ${key}` } })).arrayBuffer();
    const entries = () => lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    const requests = () => entries().filter((e) => e.msg === 'request');
    await vi.waitFor(() => expect(requests()).toHaveLength(25), LINES_MS);
    expect(requests().filter((e) => (e.status as number) >= 400)).toHaveLength(20);
    expect(requests().filter((e) => e.status === 200)).toHaveLength(5);

    server.clock.advance(10_000);
    await (await fetch(`${server.baseUrl}/pets?limit=1`, { headers: { Authorization: `Bearer ${key}` } })).arrayBuffer();
    await vi.waitFor(() => expect(requests()).toHaveLength(26), LINES_MS);
    expect(entries().filter((e) => e.msg === 'refused requests not logged')).toEqual([
      expect.objectContaining({ ip: '127.0.0.1', suppressed: 80, seconds: 10 }),
    ]);
    expect(lines.join('\n').length).toBeLessThan(30_000);
  });
});

describe('client address behind a proxy', () => {
  const anonymous = (s: TestServer, forwardedFor: string) =>
    fetch(`${s.baseUrl}/pets`, { headers: { 'X-Forwarded-For': forwardedFor } }).then((r) =>
      Number(r.headers.get('x-ratelimit-remaining')),
    );

  it('ignores X-Forwarded-For unless the proxy is trusted', async () => {
    server = await startTestServer({ anonymousLimits: { perMinute: 10, perDay: 100 } });
    expect(await anonymous(server, '203.0.113.1')).toBe(9);
    expect(await anonymous(server, '203.0.113.2')).toBe(8);
  });

  it('limits each forwarded address on its own with TRUST_PROXY', async () => {
    server = await startTestServer({ anonymousLimits: { perMinute: 10, perDay: 100 }, trustProxy: 'loopback' });
    expect(await anonymous(server, '203.0.113.1')).toBe(9);
    expect(await anonymous(server, '203.0.113.2')).toBe(9);
    expect(await anonymous(server, '203.0.113.1')).toBe(8);
  });

  // A proxy that appends the address it saw to the X-Forwarded-For the client sent: trusting the
  // proxy (its address, or one hop) takes that last entry, whatever the client wrote before it.
  it.each([['loopback'], [1]])('limits a client that rotates a forged X-Forwarded-For as one, with TRUST_PROXY=%s', async (trustProxy) => {
    server = await startTestServer({ anonymousLimits: { perMinute: 10, perDay: 100 }, trustProxy });
    const remaining = [];
    for (let i = 1; i <= 4; i++) remaining.push(await anonymous(server, `198.51.100.${i}, 203.0.113.7`));
    expect(remaining).toEqual([9, 8, 7, 6]);
  });

  // A raw X-Forwarded-For value must not be a subject of its own.
  it('limits an IPv6 /64 as one client, and a forwarded value that is no address as the proxy', async () => {
    server = await startTestServer({ anonymousLimits: { perMinute: 10, perDay: 100 }, trustProxy: true });
    expect(await anonymous(server, '2001:db8:1:2::1')).toBe(9);
    expect(await anonymous(server, '2001:db8:1:2:ffff:0:0:7')).toBe(8);
    expect(await anonymous(server, '2001:db8:1:3::1')).toBe(9);
    expect(await anonymous(server, '::ffff:203.0.113.9')).toBe(9);
    expect(await anonymous(server, '203.0.113.9')).toBe(8);
    expect(await anonymous(server, 'not-an-address-' + 'x'.repeat(500))).toBe(9);
    expect(await anonymous(server, 'another-forged-value')).toBe(8);
  });
});
