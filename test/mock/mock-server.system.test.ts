import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/shared/free-port.js';
import { responseProblems, type ExampleObject } from '../../src/contract/response-examples.js';
import { startMockServer, type MockServer } from '../../src/toolkit/mock/mock-server.js';
import { loadSpec, resolveRef } from '../../src/contract/load-spec.js';
import { basePathOf, deprecationHeaders, listOperations, type OperationInfo } from '../../src/contract/operations.js';
import { ContractChecker } from '../contract/conformance.js';
import { exampleRequest } from '../support/example-requests.js';
import { bin, ROOT, run } from '../support/run.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { killAtEnd } from '../support/processes.js';

const doc = loadSpec();
const checker = new ContractChecker(doc);
const operations = listOperations(doc);
const AUTH = { Authorization: 'Bearer as_prod_mock' };

interface ResponseObject {
  content?: Record<string, { examples?: Record<string, unknown> }>;
}

const responsesOf = (op: OperationInfo) => (doc.paths[op.path]?.[op.method] as { responses: Record<string, unknown> }).responses;

/**
 * Every (operation, status, example name) the contract declares; a response without a body
 * (a 204) is one entry with no example.
 */
const declared = operations.flatMap((op) =>
  Object.entries(responsesOf(op)).flatMap(([status, raw]) => {
    const response = resolveRef<ResponseObject>(doc, raw);
    const examples: (string | null)[] = response.content ? Object.keys(response.content['application/json']?.examples ?? {}) : [null];
    return examples.map((example) => ({ operationId: op.operationId, op, status: Number(status), example, label: example ?? 'no body' }));
  }),
);

let mock: MockServer;
beforeAll(async () => {
  mock = await startMockServer({ port: 0 });
}, 60_000);
afterAll(() => mock?.close());

/** Sends `op`'s example request (exampleRequest) to the mock with `headers` added. */
async function call(op: OperationInfo, headers: Record<string, string>) {
  const { path, init } = exampleRequest(doc, op);
  const response = await fetch(`${mock.url}${path}`, { ...init, headers: { ...AUTH, ...init.headers, ...headers } });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

describe('npm run mock', () => {
  it('declares a named example for every response with a body', () => {
    for (const op of operations) {
      for (const [status, raw] of Object.entries(responsesOf(op))) {
        if (!resolveRef<ResponseObject>(doc, raw).content) continue;
        expect(
          declared.some((d) => d.operationId === op.operationId && d.status === Number(status)),
          `${op.operationId} ${status}`,
        ).toBe(true);
      }
    }
  });

  it.each(declared)('answers $operationId with $status ($label) when asked with Prefer', async ({ op, status, example }) => {
    const observed = await call(op, { Prefer: example ? `code=${status}, example=${example}` : `code=${status}` });
    expect(observed.status).toBe(status);
    expect(checker.checkResponse(op.operationId, observed)).toEqual([]);
    const value = example ? resolveRef<ExampleObject>(doc, doc.components?.examples?.[example]) : undefined;
    if (value) expect(JSON.parse(observed.text)).toEqual(value.value);
    else expect(observed.text).toBe('');
    // The headers the example goes with, and what the lint rule asks of them.
    for (const [name, sent] of Object.entries(value?.['x-headers'] ?? {})) expect(observed.headers.get(name), name).toBe(String(sent));
    const body = observed.text ? (JSON.parse(observed.text) as unknown) : undefined;
    expect(responseProblems({ status, headers: Object.fromEntries(observed.headers), body })).toEqual([]);
  });

  it.each(operations)('sends deprecation headers on $operationId only as its own x-sunset and x-successor say', async (op) => {
    const expected = deprecationHeaders(op, basePathOf(doc));
    for (const status of Object.keys(responsesOf(op))) {
      const observed = await call(op, { Prefer: `code=${status}` });
      const seen = {
        Deprecation: observed.headers.get('deprecation'),
        Sunset: observed.headers.get('sunset'),
        Link: observed.headers.get('link'),
      };
      if (expected) expect(seen, `${op.operationId} ${status}`).toEqual(expected);
      else {
        expect([seen.Deprecation, seen.Sunset], `${op.operationId} ${status}`).toEqual([null, null]);
        expect(seen.Link ?? '', `${op.operationId} ${status}`).not.toContain('successor-version');
      }
      expect(observed.headers.get('sl-violations')).toBeNull();
    }
  });

  it('serves the API under /v1 only, like the real server', async () => {
    const response = await fetch(`${mock.url.replace(/\/v1$/, '')}/pets`, { headers: AUTH });
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ code: 'not_found', status: 404 });
  });

  it('answers a path of no operation with 404 whether or not a key is sent, like the real server', async () => {
    // Prism alone would take /pets/ for /pets, and ask for the key.
    for (const path of ['/owners', '/pets/']) {
      for (const headers of [AUTH, {}]) {
        const response = await fetch(`${mock.url}${path}`, { headers });
        expect(response.status, `${path} ${JSON.stringify(headers)}`).toBe(404);
        expect(await response.json()).toMatchObject({ code: 'not_found', status: 404 });
      }
    }
  });

  it('answers an invalid request with 400 and one detail per offending field', async () => {
    const response = await fetch(`${mock.url}/pets?limit=0&status=lost`, { headers: AUTH });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { code: string; details: { field: string }[] };
    expect(body.code).toBe('invalid_request');
    expect(body.details.map((d) => d.field).sort()).toEqual(['query.limit', 'query.status']);
  });

  it('generates bodies from the schemas with --dynamic', async () => {
    const dynamic = await startMockServer({ port: 0, dynamic: true });
    try {
      // Generated data is random: every one of 20 answers must keep the contract.
      for (let i = 0; i < 20; i++) {
        const response = await fetch(`${dynamic.url}/pets`, { headers: AUTH });
        const observed = { status: response.status, headers: response.headers, text: await response.text() };
        expect(observed.status).toBe(200);
        expect(checker.checkResponse('listPets', observed)).toEqual([]);
      }
    } finally {
      await dynamic.close();
    }
  });

  it('explains a port that is taken', async () => {
    await expect(startMockServer({ port: mock.port })).rejects.toThrow(`Port ${mock.port} on 127.0.0.1 is already in use`);
  });

  it('prints its help and refuses a bad port', async () => {
    const help = await run(bin('tsx'), [`${ROOT}scripts/mock.ts`, '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Prefer: code=429');
    const bad = await run(bin('tsx'), [`${ROOT}scripts/mock.ts`, '--port', 'abc']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--port must be a whole number');
  });

  it("logs only its own address at start-up, then a line per request as the client got it, none of Prism's", async () => {
    const port = await freePort();
    const child = spawn(process.execPath, ['--import', 'tsx', `${ROOT}scripts/mock.ts`, '--port', String(port)], {
      cwd: ROOT,
      env: { ...process.env, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    killAtEnd(child);
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
    try {
      // Prism starts in a few seconds; only a mock that never starts waits this long.
      await expect.poll(() => output, { timeout: 50_000, interval: 100 }).toContain('Press Ctrl+C to stop.');
      // Prism's late lines, if any, would come now. A busy machine can only make them later than
      // 500 ms, and the test pass without seeing them: it never fails for want of time.
      await new Promise((r) => setTimeout(r, 500));
      expect(output).toContain(`Mock Animal Store API at http://127.0.0.1:${port}/v1`);
      expect(output).not.toMatch(/NO_PATH_MATCHED_ERROR|error|Prism|\[CLI\]/i);
      const ports = new Set([...output.matchAll(/127\.0\.0\.1:(\d+)/g)].map((m) => Number(m[1])));
      expect([...ports]).toEqual([port]);
      const started = output.length;
      await fetch(`http://127.0.0.1:${port}/v1/pets`, { headers: { Authorization: 'Bearer any' } });
      await fetch(`http://127.0.0.1:${port}/v1/pets`, {
        method: 'POST',
        headers: { Authorization: 'Bearer any', 'Content-Type': 'application/json' },
        body: '{"name":""}',
      });
      // Each line comes as its answer is sent, within milliseconds; 10 s only bounds the wait for one that never comes.
      await expect.poll(() => output.slice(started), { timeout: 10_000, interval: 50 }).toBe('GET /v1/pets → 200\nPOST /v1/pets → 400\n');
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  }, 60_000);
});

describe('the mock answers as the server does', () => {
  let server: TestServer;
  let key: string;
  beforeAll(async () => {
    server = await startTestServer();
    key = await server.newKey('pro');
  });
  afterAll(() => server?.close());

  const json = { 'Content-Type': 'application/json' };
  const requests: [string, RequestInit][] = [
    ['/pets?limit=101', {}],
    ['/pets?limit=0&status=lost', {}],
    ['/pets?limit=abc', {}],
    ['/pets?limit=1e1', {}],
    ['/pets?limit=1&limit=2', {}],
    ['/pets?cursor=%21%21', {}],
    ['/pets?colour=red', {}],
    ['/pets/abc', {}],
    ['/pets/0', {}],
    ['/pets/%ZZ', {}],
    ['/pets', { method: 'POST', headers: json, body: '{"categoryId":0}' }],
    ['/pets', { method: 'POST', headers: json, body: '{"id":7,"name":"Rex","categoryId":3}' }],
    ['/pets', { method: 'POST', headers: json, body: '{"name":"Rex","categoryId":9007199254740993}' }],
    ['/pets', { method: 'POST', headers: json, body: '{"name":"Rex","categoryId":3,"categoryId":4}' }],
    ['/pets', { method: 'POST', headers: json, body: '{"name":5,"categoryId":"x","status":"lost"}' }],
    ['/pets', { method: 'POST', headers: json, body: '{"name":"","categoryId":3}' }],
    ['/pets', { method: 'POST', headers: json, body: '{"name":"Re\\u0007x","categoryId":3}' }],
    ['/pets', { method: 'POST', headers: json, body: '[]' }],
    ['/pets', { method: 'POST', headers: json, body: '{' }],
    ['/pets', { method: 'POST', headers: { ...json, 'Idempotency-Key': 'a b' }, body: '{"name":"Rex","categoryId":3}' }],
  ];

  /** Status and Error body, with `details` in a fixed order (the server's validator and Prism's list them in their own). */
  const answer = async (baseUrl: string, bearer: string, path: string, init: RequestInit) => {
    const response = await fetch(`${baseUrl}${path}`, {
      ...init,
      headers: { ...(init.headers as Record<string, string>), Authorization: `Bearer ${bearer}` },
    });
    const body = (await response.json()) as { details?: { field: string; message: string }[] };
    body.details?.sort((a, b) => `${a.field} ${a.message}`.localeCompare(`${b.field} ${b.message}`));
    return { status: response.status, body };
  };

  it.each(requests)('refuses %s %j with the same 400, in the same words', async (path, init) => {
    const fromServer = await answer(server.baseUrl, key, path, init);
    expect(fromServer.status).toBe(400);
    expect(await answer(mock.url, 'as_prod_mock', path, init)).toEqual(fromServer);
  });

  /**
   * The names of a response's headers, without those of the connection and the transfer, and
   * without CORS's: the mock answers any origin (frontend teams call it from a browser), the
   * server those CORS_ORIGINS names.
   */
  const headerNames = (response: Response) =>
    [...response.headers.keys()]
      .filter((name) => !['connection', 'keep-alive', 'date', 'content-length', 'etag', 'vary'].includes(name))
      .filter((name) => !name.startsWith('access-control-'))
      .sort();
  const exchanges: [string, (bearer: string) => RequestInit][] = [
    [
      'a first POST, no Idempotency-Key',
      (bearer) => ({
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${bearer}` },
        body: '{"name":"Rex","categoryId":3}',
      }),
    ],
    ['a GET without a key', () => ({})],
  ];

  it.each(exchanges)('answers %s with the headers the server sends', async (_, init) => {
    const fromServer = await fetch(`${server.baseUrl}/pets`, init(key));
    const fromMock = await fetch(`${mock.url}/pets`, init('as_prod_mock'));
    expect(fromMock.status).toBe(fromServer.status);
    expect(headerNames(fromMock)).toEqual(headerNames(fromServer));
  });
});
