import { once } from 'node:events';
import { IncomingMessage, ServerResponse } from 'node:http';
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { contractServer, HttpProblem, loadContract, serve, type Served, type ServeOptions, type UnparsedRequest } from 'contract-kit';

const started: Served[] = [];
afterEach(async () => {
  for (const served of started.splice(0)) await served.stop({ graceMs: 0 });
});

async function start(app: Parameters<typeof serve>[0], options: ServeOptions = {}) {
  const served = await serve(app, { port: 0, host: '127.0.0.1', signals: [], onWarning: () => {}, ...options });
  started.push(served);
  return served;
}

/** Sends `pieces` on one connection, `gapMs` apart, and resolves with all it received once the server closes it. */
async function exchange(port: number, pieces: readonly string[], gapMs = 10): Promise<string> {
  const socket = connect({ host: '127.0.0.1', port });
  socket.on('error', () => {});
  await once(socket, 'connect');
  let received = '';
  socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
  const closed = once(socket, 'close');
  for (const piece of pieces) {
    if (!socket.writable) break;
    socket.write(piece);
    await new Promise((resolve) => setTimeout(resolve, gapMs));
  }
  await closed;
  return received;
}

/** The status, headers (names in lower case) and body of the one answer in `raw`. */
function answerOf(raw: string) {
  const [head = '', body = ''] = raw.split('\r\n\r\n', 2);
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(
    lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
  );
  return { status: Number(statusLine.split(' ')[1]), headers, body, answers: raw.match(/^HTTP\/1\.1 /gm)?.length ?? 0 };
}

// serve gives the app Node's own requests and responses: Express sets its own prototypes on each.
describe('serve, with an Express app', () => {
  it("gives requests and responses Express's prototypes and API (req.get, req.params, res.status, res.json)", async () => {
    const app = express();
    app.get('/inspect/:name', (req, res) => {
      res
        .status(203)
        .set('X-Seen', req.get('X-Probe') ?? 'none')
        .json({
          prototypes: Object.getPrototypeOf(req) === app.request && Object.getPrototypeOf(res) === app.response,
          node: req instanceof IncomingMessage && res instanceof ServerResponse,
          params: req.params,
          ip: req.ip,
        });
    });
    const served = await start(app);
    const response = await fetch(`http://127.0.0.1:${served.port}/inspect/rex`, { headers: { 'X-Probe': 'yes' } });
    expect(response.status).toBe(203);
    expect(response.headers.get('x-seen')).toBe('yes');
    expect(await response.json()).toEqual({ prototypes: true, node: true, params: { name: 'rex' }, ip: '127.0.0.1' });
  });
});

describe('serve, refusing what Node cannot parse', () => {
  const BROKEN = [
    'GET / HTTP/1.1\r\nHost: a\r\nOrigin: https://app.example\r\nBroken header line\r\n',
    ...Array.from({ length: 5 }, () => 'more\r\n'),
  ];

  it('answers once, and tells once, a connection that goes on sending after its request broke', async () => {
    const refused: [UnparsedRequest, Record<string, string>, boolean][] = [];
    const served = await start(express(), {
      // As slow as a remote store: the refusal is still being made when more comes.
      refusalHeaders: (request) =>
        new Promise((resolve) => setTimeout(() => resolve({ 'X-Request-Id': 'r1', 'X-Origin': String(request.origin) }), 100)),
      onRefused: (...args) => void refused.push(args),
    });
    const answer = answerOf(await exchange(served.port, BROKEN));
    expect(answer.answers).toBe(1);
    expect(answer.status).toBe(400);
    expect(answer.headers).toMatchObject({
      'content-type': 'application/problem+json',
      'x-request-id': 'r1',
      'x-origin': 'https://app.example',
      connection: 'close',
    });
    expect(JSON.parse(answer.body)).toMatchObject({ status: 400, detail: 'The request is not valid HTTP.' });
    // Past the time any later refusal would have taken to be made.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(refused).toHaveLength(1);
    expect(refused[0]![0]).toMatchObject({ status: 400, reason: 'HPE_INVALID_HEADER_TOKEN', address: '127.0.0.1' });
    expect(refused[0]!.slice(1)).toEqual([{ 'x-request-id': 'r1', 'x-origin': 'https://app.example' }, false]);
  });

  it("answers with the contract's error body when given contractServer's answerOf, 431 for headers over Node's limit", async () => {
    const kit = contractServer({
      contract: await loadContract(fileURLToPath(new URL('./fixtures/errors-3.0.yaml', import.meta.url))),
      handlers: {},
      onWarning: () => {},
    });
    const app = express().use(kit.router, kit.notFound, kit.errorHandler);
    const served = await start(app, { answerOf: kit.answerOf });
    const broken = answerOf(await exchange(served.port, BROKEN));
    const declared = kit.answerOf(new HttpProblem(400, 'invalid_request', 'x'))!;
    expect(broken.status).toBe(400);
    expect(broken.headers['content-type']).toBe(declared.contentType);
    expect(declared.contentType).not.toBe('application/problem+json');
    expect(typeof JSON.parse(broken.body)).toBe('object');
    const large = answerOf(await exchange(served.port, [`GET /api/documents HTTP/1.1\r\nHost: a\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`]));
    expect(large.status).toBe(431);
    expect(large.headers['content-type']).toBe(kit.answerOf(new HttpProblem(431, 'x', 'x'))!.contentType);
  });

  it('answers a request whose body broke the chunked framing at once, through its own response', async () => {
    const refused: boolean[] = [];
    const app = express().post('/upload', (req) => void req.resume());
    const served = await start(app, { onRefused: (_request, _headers, handedToApp) => void refused.push(handedToApp) });
    const began = performance.now();
    const answer = answerOf(
      await exchange(served.port, ['POST /upload HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n', 'zz\r\nabc\r\n']),
    );
    expect(performance.now() - began).toBeLessThan(2000);
    expect(answer.status).toBe(400);
    expect(answer.headers['content-type']).toBe('application/problem+json');
    expect(refused).toEqual([true]);
  });
});
