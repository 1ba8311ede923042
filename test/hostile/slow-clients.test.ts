import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exchange, requestBytes } from '../support/raw-http.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { BASE_PATH } from '../support/base-path.js';

// Slow clients (slowloris): a server that waits for them forever runs out of connections. The
// server here has short timeouts, so each case takes a fraction of a second; the defaults
// (10 s for headers, 30 s for the request) are configuration (HEADERS_TIMEOUT_MS, ...).

const TIMEOUTS = { headersTimeoutMs: 300, requestTimeoutMs: 600, keepAliveTimeoutMs: 300 };
/**
 * A client that sends one piece every GAP_MS needs PIECES × GAP_MS (4 s), far beyond the
 * timeouts: the server gives up on it within 0.7 s (the request timeout and its next check),
 * which leaves 3 s for timers a loaded machine runs late. Its timers and the client's run late
 * alike, and the client's can only make it slower.
 */
const GAP_MS = 100;
const PIECES = 40;

let server: TestServer;
let key: string;

beforeAll(async () => {
  server = await startTestServer({ timeouts: TIMEOUTS });
  key = await server.newKey('business');
});
afterAll(() => server?.close());

/** `bytes` cut into `n` pieces of about the same size. */
function pieces(bytes: Buffer, n: number): Buffer[] {
  const size = Math.ceil(bytes.length / n);
  return Array.from({ length: Math.ceil(bytes.length / size) }, (_, i) => bytes.subarray(i * size, (i + 1) * size));
}

const normalRequestWorks = async () =>
  (await fetch(`${server.baseUrl}/pets?limit=1`, { headers: { Authorization: `Bearer ${key}` } })).status === 200;

describe('slow clients', () => {
  it('closes the connection of a client that dribbles its headers, without answering', async () => {
    const request = requestBytes(server.origin, {
      method: 'GET',
      target: `${BASE_PATH}/pets`,
      headers: [['Authorization', `Bearer ${key}`]],
    });
    const outcome = await exchange(server.origin, pieces(request, PIECES), GAP_MS);
    expect(outcome.kind).toBe('closed');
    expect(outcome.partsWritten, 'pieces sent before the server closed the connection').toBeLessThan(PIECES);
    expect(await normalRequestWorks()).toBe(true);
  });

  it('closes the connection of a client that dribbles its body, and stores nothing', async () => {
    const body = JSON.stringify({ name: 'Slow', categoryId: 3, status: 'available' }).padEnd(PIECES, ' ');
    const head = requestBytes(server.origin, {
      method: 'POST',
      target: `${BASE_PATH}/pets`,
      headers: [
        ['Authorization', `Bearer ${key}`],
        ['Content-Type', 'application/json'],
        ['Content-Length', String(body.length)],
      ],
    });
    const outcome = await exchange(server.origin, [head, ...pieces(Buffer.from(body), PIECES)], GAP_MS);
    expect(outcome.kind).toBe('closed');
    expect(outcome.partsWritten).toBeLessThan(PIECES + 1);
    expect(await server.store.listPets({ limit: 10 })).toEqual([]);
    expect(await normalRequestWorks()).toBe(true);
  });

  it('answers a declared 100 MB body with 413 at once, without reading it', async () => {
    const head = requestBytes(server.origin, {
      method: 'POST',
      target: `${BASE_PATH}/pets`,
      headers: [
        ['Authorization', `Bearer ${key}`],
        ['Content-Type', 'application/json'],
        ['Content-Length', String(100 * 1024 * 1024)],
      ],
    });
    // Headers only, then a trickle: the answer must not wait for the 100 MB.
    const outcome = await exchange(server.origin, [head, ...pieces(Buffer.from('{"name":"Rex"'.padEnd(PIECES)), PIECES)], GAP_MS);
    expect(outcome.kind).toBe('response');
    if (outcome.kind !== 'response') return;
    expect(outcome.response.status).toBe(413);
    expect(JSON.parse(outcome.response.body)).toMatchObject({ code: 'payload_too_large', status: 413 });
    expect(outcome.response.headers.get('connection')).toBe('close');
    expect(outcome.partsWritten).toBeLessThan(PIECES + 1);
  });

  it('closes an idle keep-alive connection', async () => {
    const request = Buffer.from(
      requestBytes(server.origin, { method: 'GET', target: `${BASE_PATH}/pets?limit=1`, headers: [['Authorization', `Bearer ${key}`]] })
        .toString('latin1')
        .replace('Connection: close\r\n', ''),
      'latin1',
    );
    // One request, then silence: the server answers, then closes the idle connection itself.
    const outcome = await exchange(server.origin, [request]);
    expect(outcome.kind).toBe('response');
    if (outcome.kind === 'response') expect(outcome.response.status).toBe(200);
  });

  it('keeps answering normal requests while 50 slow clients hold connections', async () => {
    const request = requestBytes(server.origin, {
      method: 'GET',
      target: `${BASE_PATH}/pets`,
      headers: [['Authorization', `Bearer ${key}`]],
    });
    const slow = Array.from({ length: 50 }, () => exchange(server.origin, pieces(request, PIECES), GAP_MS));
    // Let them connect first; should some connect later on a busy machine, they still hold
    // connections while the second normal request is made.
    await new Promise((r) => setTimeout(r, GAP_MS));
    expect(await normalRequestWorks()).toBe(true);
    const outcomes = await Promise.all(slow);
    expect(outcomes.every((o) => o.kind === 'closed')).toBe(true);
    expect(await normalRequestWorks()).toBe(true);
  });
});

describe('the log under slow clients', () => {
  it('logs each body cut off at the request timeout as one warning without a stack, 20 a window per address', async () => {
    const logLines: string[] = [];
    const logged = await startTestServer({ timeouts: TIMEOUTS, logLines });
    try {
      const business = await logged.newKey('business');
      const body = JSON.stringify({ name: 'Slow', categoryId: 3 });
      const head = requestBytes(logged.origin, {
        method: 'POST',
        target: '/v1/pets',
        headers: [
          ['Authorization', `Bearer ${business}`],
          ['Content-Type', 'application/json'],
          ['Content-Length', String(body.length)],
        ],
      });
      // 100 connections send their headers and half their body, then nothing, until the server cuts them off.
      const outcomes = await Promise.all(
        Array.from({ length: 100 }, () => exchange(logged.origin, [head, Buffer.from(body.slice(0, body.length / 2))])),
      );
      expect(outcomes.every((o) => o.kind === 'closed')).toBe(true);
      const entries = () => logLines.map((line) => JSON.parse(line) as Record<string, unknown>);
      // A line is written at the end of the turn its connection closed in, on a busy machine some turns after the client saw it close.
      for (let waited = 0; waited < 5000 && entries().filter((e) => e.msg === 'request abandoned').length < 20; waited += 20) {
        await new Promise((r) => setTimeout(r, 20));
      }
      await new Promise((r) => setTimeout(r, 50));
      expect(entries().filter((e) => (e.level as number) >= 50)).toEqual([]);
      expect(logLines.join('\n')).not.toContain('"stack"');
      const abandoned = entries().filter((e) => e.msg === 'request abandoned');
      expect(abandoned).toHaveLength(20);
      for (const line of abandoned) {
        expect(line).toMatchObject({ level: 40, method: 'POST', path: '/v1/pets', ip: '127.0.0.1' });
        expect(line.requestId).toEqual(expect.any(String));
        expect(line.reason).toContain('before the request was complete');
      }
      // At the window's end, one line counts the 80 left out.
      logged.clock.advance(10_000);
      await fetch(`${logged.baseUrl}/pets?limit=1`, { headers: { Authorization: `Bearer ${business}` } });
      await new Promise((r) => setTimeout(r, 50));
      expect(entries()).toContainEqual(expect.objectContaining({ level: 40, msg: 'refused requests not logged', suppressed: 80 }));
    } finally {
      await logged.close();
    }
  });
});
