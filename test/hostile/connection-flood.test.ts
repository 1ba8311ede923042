import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestServer, type TestServer } from '../support/test-server.js';

// Idle connections from many client addresses (127.0.0.x: every one of them is loopback on
// Linux) must not take every connection the service can hold. The caps here are small, so the
// flood is a few hundred connections; the defaults are MAX_CONNECTIONS and MAX_CONNECTIONS_PER_ADDRESS.

const CONNECTIONS = { maxConnections: 60, maxConnectionsPerAddress: 8 };
const FLOOD_ADDRESSES = Array.from({ length: 8 }, (_, i) => `127.0.0.${i + 2}`);
const POLITE_ADDRESS = '127.0.0.100';

let server: TestServer;
let key: string;
const flood: { address: string; socket: Socket; closed: boolean }[] = [];

beforeAll(async () => {
  // Idle connections outlive the test: the headers timeout is longer than its 30 s.
  server = await startTestServer({ connections: CONNECTIONS, timeouts: { headersTimeoutMs: 60_000, requestTimeoutMs: 60_000 } });
  key = await server.newKey('business');
});
afterAll(async () => {
  for (const { socket } of flood) socket.destroy();
  await server?.close();
});

/** Opens an idle connection from `address` that sends nothing; resolves once it is connected. */
function idleConnection(address: string): Promise<void> {
  return new Promise((resolve) => {
    const socket = connect({ port: Number(new URL(server.origin).port), host: '127.0.0.1', localAddress: address }, () => resolve());
    const entry = { address, socket, closed: false };
    flood.push(entry);
    socket.on('error', () => resolve());
    socket.on('close', () => {
      entry.closed = true;
      resolve();
    });
  });
}

/** GET /v1/pets on a new connection from `address`: its status, or the error that ended it. */
function politeRequest(address: string): Promise<number | string> {
  return new Promise((resolve) => {
    const req = request(
      `${server.baseUrl}/pets?limit=1`,
      { headers: { Authorization: `Bearer ${key}` }, localAddress: address, agent: false },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    req.end();
  });
}

const openFrom = (address: string) => flood.filter((c) => c.address === address && !c.closed).length;

describe('a flood of idle connections', () => {
  it('holds at most the cap per address and in all, and a client from another address is still served', async () => {
    // 20 idle connections from each of 8 addresses: 160, against 8 an address and 60 in all.
    for (let round = 0; round < 20; round++) await Promise.all(FLOOD_ADDRESSES.map(idleConnection));
    const statuses = [];
    for (let i = 0; i < 10; i++) statuses.push(await politeRequest(POLITE_ADDRESS));
    expect(statuses).toEqual(Array<number>(10).fill(200));
    // The connections beyond the caps were closed by the service: each client sees it close,
    // within milliseconds; 20 s only bounds the wait for a close that never comes.
    await vi.waitFor(() => expect(Math.max(...FLOOD_ADDRESSES.map(openFrom))).toBeLessThanOrEqual(CONNECTIONS.maxConnectionsPerAddress), {
      timeout: 20_000,
      interval: 20,
    });
    const open = FLOOD_ADDRESSES.map(openFrom);
    expect(Math.max(...open)).toBeLessThanOrEqual(CONNECTIONS.maxConnectionsPerAddress);
    expect(open.reduce((a, b) => a + b, 0)).toBeLessThan(CONNECTIONS.maxConnections);
    // Below 90 % of the total in all, each address may hold its 8.
    expect(open.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(Math.floor(CONNECTIONS.maxConnections * 0.9) - FLOOD_ADDRESSES.length);
  });
});
