import { once } from 'node:events';
import type { RequestListener } from 'node:http';
import { connect, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { afterEach, describe, expect, it } from 'vitest';
import { serve, serveOptionsFromEnv, SettingError, type Served } from 'contract-kit';

/** Answers once it has read the whole body. */
const readAll: RequestListener = (req, res) => {
  req.resume();
  req.on('end', () => res.end('read'));
};

const started: Served[] = [];
afterEach(async () => {
  for (const served of started.splice(0)) await served.stop({ graceMs: 0 });
});

async function start(options: Parameters<typeof serve>[1] = {}) {
  const warnings: string[] = [];
  const served = await serve(readAll, { port: 0, host: '127.0.0.1', signals: [], onWarning: (m) => warnings.push(m), ...options });
  started.push(served);
  return { served, warnings };
}

/** A connection to `port` that has sent `head` (and no more), with the time it was closed once it is. */
async function slowClient(port: number, head: string) {
  const socket: Socket = connect({ host: '127.0.0.1', port });
  await once(socket, 'connect');
  socket.write(head);
  let received = '';
  socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
  socket.on('error', () => {});
  const closedAt = once(socket, 'close').then(() => performance.now());
  return { socket, closedAt, received: () => received };
}

const SLOW_UPLOAD = 'POST /upload HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100000\r\n\r\nfirst bytes';

describe('serve', () => {
  it('stops within shutdownTimeoutMs while an upload is still being sent, closing its connection', async () => {
    const { served, warnings } = await start({ shutdownTimeoutMs: 300 });
    const upload = await slowClient(served.port, SLOW_UPLOAD);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const began = performance.now();
    await served.stop();
    const took = performance.now() - began;
    expect(took).toBeGreaterThanOrEqual(290);
    expect(took).toBeLessThan(1500);
    expect((await upload.closedAt) - began).toBeLessThan(1500);
    expect(warnings).toEqual(['requests still in flight 300 ms after the stop began: their connections are closed']);
  });

  it('answers a request in flight when the stop begins, closing its connection, and stops at once after', async () => {
    const { served, warnings } = await start({ shutdownTimeoutMs: 5000 });
    const upload = await slowClient(served.port, 'POST /upload HTTP/1.1\r\nHost: localhost\r\nContent-Length: 10\r\n\r\nfirst');
    // And a kept-alive connection, idle: it holds nothing up.
    const idle = await fetch(`http://127.0.0.1:${served.port}/`, { method: 'POST', body: 'x' });
    expect(await idle.text()).toBe('read');
    await new Promise((resolve) => setTimeout(resolve, 50));
    const began = performance.now();
    const stopping = served.stop();
    upload.socket.write('bytes');
    await stopping;
    expect(performance.now() - began).toBeLessThan(1500);
    await upload.closedAt;
    expect(upload.received()).toMatch(/^HTTP\/1\.1 200 OK\r\n(?:.*\r\n)*Connection: close\r\n(?:.*\r\n)*\r\nread$/i);
    expect(warnings).toEqual([]);
  });

  it('closes the connection of a client that sends its headers or its request slower than the timeouts allow', async () => {
    const { served } = await start({ headersTimeoutMs: 200, requestTimeoutMs: 400 });
    const opened = performance.now();
    const headers = await slowClient(served.port, 'GET / HTTP/1.1\r\nHost: localhost\r\n');
    const upload = await slowClient(served.port, SLOW_UPLOAD);
    // Node checks its connections every quarter of the shorter timeout here, not every 30 s.
    expect((await headers.closedAt) - opened).toBeLessThan(1000);
    expect((await upload.closedAt) - opened).toBeGreaterThanOrEqual(390);
    expect((await upload.closedAt) - opened).toBeLessThan(1500);
    // Closed without an answer: a client that slow is not waiting for one.
    expect(upload.received()).toBe('');
  });
});

describe('serveOptionsFromEnv', () => {
  it('reads PORT, HOST and the timeouts, leaving out those unset', () => {
    expect(serveOptionsFromEnv({ PORT: '8080', HOST: '127.0.0.1', SHUTDOWN_TIMEOUT_MS: '2500', REQUEST_TIMEOUT_MS: '' })).toEqual({
      port: 8080,
      host: '127.0.0.1',
      shutdownTimeoutMs: 2500,
    });
    expect(serveOptionsFromEnv({})).toEqual({});
  });

  it('refuses a value that is not a whole number in range, naming the variable', () => {
    expect(() => serveOptionsFromEnv({ PORT: '80a' })).toThrow(new SettingError('PORT must be a port number (0 to 65535), not "80a"'));
    expect(() => serveOptionsFromEnv({ PORT: '70000' })).toThrow(SettingError);
    expect(() => serveOptionsFromEnv({ SHUTDOWN_TIMEOUT_MS: '-1' })).toThrow(
      'SHUTDOWN_TIMEOUT_MS must be a number of milliseconds, not "-1"',
    );
    expect(() => serveOptionsFromEnv({ HEADERS_TIMEOUT_MS: '40000' })).toThrow(
      'HEADERS_TIMEOUT_MS (40000) must not be above REQUEST_TIMEOUT_MS (30000): the headers are part of the request',
    );
  });
});
