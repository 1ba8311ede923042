import { IncomingMessage, ServerResponse, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpServer } from '../../src/service/http/http-server.js';
import { httpTimeoutsOf } from '../../src/service/config/load-config.js';
import { defaultConfig } from '../../src/service/config/settings.js';
import { exchange, parseResponses } from '../support/raw-http.js';

// createHttpServer is Node's http server with the app as its handler (Express sets its own
// prototypes on each request, which Node 24 no longer makes costly): Express's API is all there.
describe('createHttpServer', () => {
  const app = express();
  app.set('query parser', 'simple');
  app.get('/inspect/:name', (req, res) => {
    res
      .status(203)
      .set('X-Seen', req.get('X-Probe') ?? 'none')
      .json({
        requestPrototypeIsAppRequest: Object.getPrototypeOf(req) === app.request,
        responsePrototypeIsAppResponse: Object.getPrototypeOf(res) === app.response,
        isIncomingMessage: req instanceof IncomingMessage,
        isServerResponse: res instanceof ServerResponse,
        app: req.app === app && res.app === app,
        path: req.path,
        params: req.params,
        query: req.query,
        ip: req.ip,
        protocol: req.protocol,
        accepts: req.accepts('application/json'),
        locals: typeof res.locals,
      });
  });
  app.get('/send', (_req, res) => {
    res.type('text/plain').send('plain');
  });
  let server: Server;
  let origin: string;

  beforeAll(async () => {
    const config = defaultConfig();
    ({ server } = createHttpServer(app, {
      timeouts: httpTimeoutsOf(config),
      connections: config,
      rateLimitHeadersFor: async () => ({}),
      bodyLimitBytes: 16 * 1024,
    }));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("gives requests and responses Express's prototypes and API (req.get, req.params, res.status, res.set, res.json)", async () => {
    const response = await fetch(`${origin}/inspect/rex?a=1`, { headers: { 'X-Probe': 'yes', Accept: 'application/json' } });
    expect(response.status).toBe(203);
    expect(response.headers.get('x-seen')).toBe('yes');
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await response.json()).toEqual({
      requestPrototypeIsAppRequest: true,
      responsePrototypeIsAppResponse: true,
      isIncomingMessage: true,
      isServerResponse: true,
      app: true,
      path: '/inspect/rex',
      params: { name: 'rex' },
      query: { a: '1' },
      ip: '127.0.0.1',
      protocol: 'http',
      accepts: 'application/json',
      locals: 'object',
    });
  });

  it('serves many requests on one connection, each with its own response', async () => {
    const bodies = await Promise.all(
      Array.from({ length: 20 }, (_, i) => fetch(`${origin}/inspect/n${i}`).then((r) => r.json() as Promise<{ params: { name: string } }>)),
    );
    expect(bodies.map((b) => b.params.name)).toEqual(Array.from({ length: 20 }, (_, i) => `n${i}`));
  });

  it('keeps res.send and res.type working', async () => {
    const response = await fetch(`${origin}/send`);
    expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(await response.text()).toBe('plain');
  });
});

describe('createHttpServer, refusing what Node cannot parse', () => {
  const lines: string[] = [];
  let server: Server;
  let origin: string;

  beforeAll(async () => {
    const config = defaultConfig();
    ({ server } = createHttpServer(express(), {
      timeouts: httpTimeoutsOf(config),
      connections: config,
      // As slow as Redis at REDIS_TIMEOUT_MS: the refusal is still being made when more comes.
      rateLimitHeadersFor: () => new Promise((resolve) => setTimeout(() => resolve({}), 100)),
      logger: pino({ level: 'info' }, { write: (line: string) => void lines.push(line) }),
      bodyLimitBytes: 16 * 1024,
    }));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('answers once, and logs once, a connection that goes on sending after its request broke', async () => {
    // Node's parser reports its failure again for each later read of the connection.
    const pieces = ['GET / HTTP/1.1\r\nHost: a\r\nBroken header line\r\n', ...Array.from({ length: 5 }, () => 'more\r\n')];
    const outcome = await exchange(
      origin,
      pieces.map((piece) => Buffer.from(piece)),
      10,
    );
    expect(outcome.kind).toBe('response');
    expect(outcome.kind === 'response' ? parseResponses(outcome.raw).map((r) => r.status) : []).toEqual([400]);
    // Past the time any later refusal would have taken to be logged.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(lines.filter((line) => line.includes('refused before routing'))).toHaveLength(1);
  });
});
