import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { BASE_PATH } from '../support/base-path.js';

// Idle connections from many client addresses (127.3.x.y: all of 127.0.0.0/8 is loopback on
// Linux) must not take every connection the service can hold. The caps here are small, so a flood
// is a few dozen connections; the defaults are MAX_CONNECTIONS and MAX_CONNECTIONS_PER_ADDRESS.

/** Timeouts long enough that no connection of a test is closed for being slow while it runs. */
const PATIENT = { headersTimeoutMs: 60_000, requestTimeoutMs: 60_000, keepAliveTimeoutMs: 60_000 };

let server: TestServer | undefined;
const clients: Client[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) client.socket.destroy();
  await server?.close();
  server = undefined;
});

/** A connection of the test's own, read byte for byte. */
interface Client {
  address: string;
  socket: Socket;
  /** Set once the service (or the test) closed it. */
  closed: boolean;
  /** Everything received and not yet taken as a response. */
  received: Buffer;
  /** Called on every chunk and on close. */
  onChange: () => void;
}

/** Opens a connection from `address` that sends nothing; resolves once it is connected (or refused). */
function openFrom(address: string): Promise<Client> {
  return new Promise((resolve) => {
    const socket = connect({ port: Number(new URL(server!.origin).port), host: '127.0.0.1', localAddress: address });
    const client: Client = { address, socket, closed: false, received: Buffer.alloc(0), onChange: () => {} };
    clients.push(client);
    socket.on('connect', () => resolve(client));
    socket.on('data', (chunk: Buffer) => {
      client.received = Buffer.concat([client.received, chunk]);
      client.onChange();
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      client.closed = true;
      client.onChange();
      resolve(client);
    });
  });
}

/** Waits until `ready` says so, on each chunk received and on close. */
function until<T>(client: Client, ready: () => T | undefined): Promise<T> {
  return new Promise((resolve) => {
    const check = () => {
      const value = ready();
      if (value !== undefined) resolve(value);
    };
    client.onChange = check;
    check();
  });
}

/** The next complete response on `client` (its status; every response here has Content-Length), or 'closed'. */
function nextResponse(client: Client): Promise<number | 'closed'> {
  return until(client, () => {
    const end = client.received.indexOf('\r\n\r\n');
    if (end >= 0) {
      const head = client.received.subarray(0, end).toString('latin1');
      const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
      if (client.received.length >= end + 4 + length) {
        client.received = client.received.subarray(end + 4 + length);
        return Number(head.slice(9, 12));
      }
    }
    return client.closed ? 'closed' : undefined;
  });
}

/** GET /pets (under the contract's path) on a new kept-alive connection from `address`: its status or 'closed', and the connection, left open. */
async function getFrom(address: string, key: string): Promise<{ status: number | 'closed'; client: Client }> {
  const client = await openFrom(address);
  if (!client.closed)
    client.socket.write(`GET ${BASE_PATH}/pets?limit=1 HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${key}\r\n\r\n`);
  return { status: await nextResponse(client), client };
}

/**
 * A connection from `address` with a request in progress: POST /pets whose headers the
 * service has read (it answered `100 Continue`, which Node does just before it hands the
 * request on) and whose body is still to come. `finish` sends the body and resolves with the answer.
 */
async function busyFrom(address: string, key: string): Promise<{ client: Client; finish: () => Promise<number | 'closed'> }> {
  const client = await openFrom(address);
  const body = JSON.stringify({ name: `busy ${address}`, categoryId: 1 });
  client.socket.write(
    `POST ${BASE_PATH}/pets HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${body.length}\r\nExpect: 100-continue\r\n\r\n`,
  );
  const continued = await until(client, () => {
    const end = client.received.indexOf('\r\n\r\n');
    if (end >= 0) {
      const status = client.received.subarray(0, end).toString('latin1').slice(9, 12);
      client.received = client.received.subarray(end + 4);
      return status;
    }
    return client.closed ? 'closed' : undefined;
  });
  expect(continued).toBe('100');
  return {
    client,
    finish: () => {
      client.socket.write(body);
      return nextResponse(client);
    },
  };
}

/** Resolves once every one of `of` is closed. */
const allClosed = (of: Client[]) => Promise.all(of.map((c) => until(c, () => (c.closed ? true : undefined))));

/** Resolves once `count` of the test's connections are closed, whichever they are. */
async function closedCount(count: number): Promise<void> {
  while (clients.filter((c) => c.closed).length < count) {
    await Promise.race(clients.filter((c) => !c.closed).map((c) => until(c, () => (c.closed ? true : undefined))));
  }
}

describe('a flood of idle connections', () => {
  it('holds at most the cap per address, however many connections an address opens', async () => {
    server = await startTestServer({ connections: { maxConnections: 60, maxConnectionsPerAddress: 2 }, timeouts: PATIENT });
    const flood = Array.from({ length: 4 }, (_, i) => `127.3.0.${i + 1}`);
    const opened: Client[] = [];
    for (let round = 0; round < 5; round++) for (const address of flood) opened.push(await openFrom(address));
    // The service closes those beyond the cap at once: each client sees it close.
    const beyond = flood.flatMap((address) => opened.filter((c) => c.address === address).slice(2));
    await allClosed(beyond);
    expect(flood.map((address) => opened.filter((c) => c.address === address && !c.closed).length)).toEqual([2, 2, 2, 2]);
  });

  it('from many addresses, filling the cap, still leaves room for every new client: the longest idle goes', async () => {
    server = await startTestServer({ connections: { maxConnections: 60, maxConnectionsPerAddress: 2 }, timeouts: PATIENT });
    const key = await server.newKey('business');
    // 20 connections with a request in progress first (the oldest), then 40 idle ones, from
    // 10 and 20 addresses, 2 each: the cap is full, and no address is above its share.
    const busy = [];
    for (let i = 0; i < 20; i++) busy.push(await busyFrom(`127.3.1.${(i >> 1) + 1}`, key));
    const idle = [];
    for (let i = 0; i < 40; i++) idle.push(await openFrom(`127.3.2.${(i >> 1) + 1}`));
    expect(idle.filter((c) => c.closed)).toEqual([]);

    // 10 new clients, each from an address of its own, each keeping its connection open after
    // its answer: every one is served, and the 10 connections idle longest make room for them.
    const fresh = [];
    for (let i = 0; i < 10; i++) fresh.push(await getFrom(`127.3.3.${i + 1}`, key));
    expect(fresh.map((f) => f.status)).toEqual(Array<number>(10).fill(200));
    await closedCount(10);
    expect(idle.map((c) => c.closed)).toEqual([...Array<boolean>(10).fill(true), ...Array<boolean>(30).fill(false)]);

    // 50 more: the rest of the idle flood goes, then the new clients idle longest.
    for (let i = 10; i < 60; i++) fresh.push(await getFrom(`127.3.3.${i + 1}`, key));
    expect(fresh.map((f) => f.status)).toEqual(Array<number>(60).fill(200));
    await closedCount(60);
    expect(idle.filter((c) => !c.closed)).toEqual([]);
    expect(fresh.map((f) => f.client.closed)).toEqual([...Array<boolean>(20).fill(true), ...Array<boolean>(40).fill(false)]);

    // The connections with a request in progress were never the ones closed: each is answered.
    expect(busy.filter((b) => b.client.closed)).toEqual([]);
    expect(await Promise.all(busy.map((b) => b.finish()))).toEqual(Array<number>(20).fill(201));
  });

  it('lets an address that holds its share of a full cap replace only its own idle connections', async () => {
    server = await startTestServer({ connections: { maxConnections: 60, maxConnectionsPerAddress: 20 }, timeouts: PATIENT });
    const key = await server.newKey('business');
    // 10 idle connections from each of 6 addresses, in turn: the cap is full, each address holds
    // the mean, and the connection idle longest is the first address's.
    const idle = [];
    for (let i = 0; i < 60; i++) idle.push(await openFrom(`127.3.6.${(i % 6) + 1}`));
    expect((await getFrom('127.3.6.2', key)).status).toBe('closed');
    // The first address does get in, in the place of its own connection idle longest (as one
    // proxy in front of the service would); and so does a new client, in the next one's place.
    expect((await getFrom('127.3.6.1', key)).status).toBe(200);
    expect((await getFrom('127.3.7.1', key)).status).toBe(200);
    await closedCount(3);
    expect(idle.map((c) => c.closed)).toEqual([true, true, ...Array<boolean>(58).fill(false)]);
  });

  it('keeps a client that was served, and lets it open more, while idle connections from many addresses churn', async () => {
    server = await startTestServer({ connections: { maxConnections: 60, maxConnectionsPerAddress: 2 }, timeouts: PATIENT });
    const key = await server.newKey('business');
    const served = await getFrom('127.3.8.1', key);
    expect(served.status).toBe(200);
    // One idle connection from each of 120 addresses: twice the cap, so each of the last 60 takes
    // the place of a connection idle longer than itself, the served client's kept-alive one the oldest.
    const flood = [];
    for (let i = 0; i < 120; i++) flood.push(await openFrom(`127.3.9.${i + 1}`));
    await closedCount(60);
    expect(served.client.closed).toBe(false);
    served.client.socket.write(`GET /v1/pets?limit=1 HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${key}\r\n\r\n`);
    expect(await nextResponse(served.client)).toBe(200);
    // Holding one connection, as every address does, it is no crowd: its second one gets in too.
    expect((await getFrom('127.3.8.1', key)).status).toBe(200);
  });

  it('refuses a new client only while every connection has a request in progress', async () => {
    server = await startTestServer({ connections: { maxConnections: 10, maxConnectionsPerAddress: 2 }, timeouts: PATIENT });
    const key = await server.newKey('business');
    const busy = [];
    for (let i = 0; i < 10; i++) busy.push(await busyFrom(`127.3.4.${(i >> 1) + 1}`, key));
    const refused = await getFrom('127.3.5.1', key);
    expect(refused.status).toBe('closed');
    expect(busy.filter((b) => b.client.closed)).toEqual([]);
    // One answered (its connection kept alive, idle now): the next new client takes its place.
    expect(await busy[0]!.finish()).toBe(201);
    expect((await getFrom('127.3.5.2', key)).status).toBe(200);
    await closedCount(2);
    expect(busy.map((b) => b.client.closed)).toEqual([true, ...Array<boolean>(9).fill(false)]);
    expect(await Promise.all(busy.slice(1).map((b) => b.finish()))).toEqual(Array<number>(9).fill(201));
  });
});
