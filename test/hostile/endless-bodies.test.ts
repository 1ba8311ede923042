import { connect } from 'node:net';
import { once } from 'node:events';
import { constants, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer } from '../support/test-server.js';
import { BASE_PATH } from '../support/base-path.js';

/** What a client that never stops sending a body saw: the status it was answered, and how much it managed to send. */
interface Outcome {
  status: number | null;
  sentBytes: number;
  closedByServer: boolean;
}

/** How much a client offers at most: far beyond the 16 KiB limit and the kernel's socket buffers on loopback (a few MiB). */
const OFFERED_BYTES = 96 * 1024 * 1024;
/** A server that stops reading at the limit lets a client send the limit plus what the two sockets' buffers hold. */
const MAX_ACCEPTED_BYTES = 24 * 1024 * 1024;

/**
 * Sends a request whose chunked body goes on until the server closes the connection or
 * OFFERED_BYTES are sent, reading the answer as it comes, as a client uploading a huge body
 * (or an attacker) would. `compressed` sends it gzipped without compression (one gzip member
 * after another, each stored), so that the bytes on the wire are about those inflated. Gives up after 20 s, so that a test
 * that timed out leaves no client sending.
 */
async function sendEndlessBody(port: number, head: string[], compressed = false): Promise<Outcome> {
  const socket = connect(port, '127.0.0.1');
  await once(socket, 'connect');
  let received = Buffer.alloc(0);
  let closedByServer = false;
  socket.on('data', (data: Buffer) => (received = Buffer.concat([received, data])));
  const closed = new Promise<void>((resolve) => {
    socket.on('error', () => {});
    socket.on('close', () => resolve());
  });
  socket.on('end', () => (closedByServer = true));
  socket.on('error', () => (closedByServer = true));
  socket.write([...head, 'Transfer-Encoding: chunked', ...(compressed ? ['Content-Encoding: gzip'] : []), '', ''].join('\r\n'));
  const block = Buffer.alloc(64 * 1024, 'a');
  const piece = compressed ? gzipSync(block, { level: constants.Z_NO_COMPRESSION }) : block;
  let sentBytes = 0;
  const giveUpAt = Date.now() + 20_000;
  while (sentBytes < OFFERED_BYTES && !socket.destroyed && !closedByServer && Date.now() < giveUpAt) {
    const chunk = Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n')]);
    sentBytes += chunk.length;
    if (!socket.write(chunk)) await Promise.race([new Promise((resolve) => socket.once('drain', resolve)), closed]);
  }
  if (!socket.destroyed && !closedByServer) socket.write('0\r\n\r\n');
  // Once the whole body is sent (the server read it all), the answer comes; otherwise the close has.
  await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 5000))]);
  socket.destroy();
  const text = received.toString('latin1');
  const status = /^HTTP\/1\.1 (\d{3})/.exec(text)?.[1];
  return {
    status: status ? Number(status) : null,
    sentBytes,
    closedByServer,
  };
}

let server: Awaited<ReturnType<typeof startTestServer>>;
let key: string;
let usedUpKey: string;

beforeAll(async () => {
  server = await startTestServer();
  key = await server.newKey('pro');
  usedUpKey = await server.newKey('free');
  for (let i = 0; i < 60; i++)
    await (await fetch(`${server.baseUrl}/pets`, { headers: { Authorization: `Bearer ${usedUpKey}` } })).arrayBuffer();
});
afterAll(() => server.close());

const headFor = (method: string, target: string, headers: string[]) => [`${method} ${target} HTTP/1.1`, 'Host: localhost', ...headers];

// Every kind of route, including those answered before the body is read: the answer comes and
// the connection closes once the limit is passed, instead of the server reading on to the end.
const ROUTES: [name: string, status: number, head: () => string[]][] = [
  [
    'an operation that reads a JSON body',
    413,
    () => headFor('POST', `${BASE_PATH}/pets`, [`Authorization: Bearer ${key}`, 'Content-Type: application/json']),
  ],
  ['a request without a key', 401, () => headFor('POST', `${BASE_PATH}/pets`, ['Content-Type: application/json'])],
  [
    'a request over its rate limit',
    429,
    () => headFor('POST', `${BASE_PATH}/pets`, [`Authorization: Bearer ${usedUpKey}`, 'Content-Type: application/json']),
  ],
  [
    'a media type the operation does not take',
    415,
    () => headFor('POST', `${BASE_PATH}/pets`, [`Authorization: Bearer ${key}`, 'Content-Type: text/plain']),
  ],
  ['a method the path does not have', 405, () => headFor('DELETE', `${BASE_PATH}/pets`, [`Authorization: Bearer ${key}`])],
  ['a path the contract does not have', 404, () => headFor('POST', `${BASE_PATH}/nothing-here`, [`Authorization: Bearer ${key}`])],
  ['an operation that takes no body', 200, () => headFor('GET', `${BASE_PATH}/pets`, [`Authorization: Bearer ${key}`])],
];

describe('a body that never ends', () => {
  for (const [name, status, head] of ROUTES) {
    for (const compressed of [false, true]) {
      it(`${name}, ${compressed ? 'gzip' : 'plain'} and chunked: answered ${status}, and the connection closed without reading on`, async () => {
        const outcome = await sendEndlessBody(server.port, head(), compressed);
        console.log(
          `${name}, ${compressed ? 'gzip' : 'plain'}: ${outcome.status}, ${(outcome.sentBytes / 1024 / 1024).toFixed(1)} MiB sent before the close`,
        );
        expect(outcome.status).toBe(status);
        expect(outcome.closedByServer).toBe(true);
        expect(outcome.sentBytes).toBeLessThan(MAX_ACCEPTED_BYTES);
      }, 30_000);
    }
  }
});
