import { listOperations, resolveRef, type Operation } from 'contract-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { responseProblems, type ExampleObject } from '../../lint/response-examples.js';
import { loadSpec } from '../../src/contract/load-spec.js';
import { ContractChecker } from '../contract/conformance.js';
import { exampleRequest } from '../support/example-requests.js';
import { startMockForTests, type MockServer } from '../support/mock-target.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { BASE_PATH } from '../support/base-path.js';

// `npm run mock` is contract-kit mock with contract-kit.config.ts: started here as that command.
const doc = loadSpec();
const checker = new ContractChecker(doc);
const operations = listOperations(doc);
const AUTH = { Authorization: 'Bearer as_prod_mock' };

/** Every (operation, status, example name) the contract declares; a response without a body (a 204) is one entry with no example. */
const declared = operations.flatMap((op) =>
  Object.entries(op.raw.responses as Record<string, unknown>).flatMap(([status, raw]) => {
    const response = resolveRef<{ content?: Record<string, { examples?: Record<string, unknown> }> }>(doc, raw);
    const examples: (string | null)[] = response.content ? Object.keys(response.content['application/json']?.examples ?? {}) : [null];
    return examples.map((example) => ({ name: op.name, op, status: Number(status), example, label: example ?? 'no body' }));
  }),
);

let mock: MockServer;
let server: TestServer;
let key: string;
beforeAll(async () => {
  [mock, server] = await Promise.all([startMockForTests(), startTestServer()]);
  key = await server.newKey('pro');
}, 60_000);
afterAll(() => Promise.all([mock?.close(), server?.close()]));

/** Sends `op`'s example request (exampleRequest) to the mock with `headers` added. */
async function call(op: Operation, headers: Record<string, string>) {
  const { path, init } = exampleRequest(doc, op);
  const response = await fetch(`${mock.url}${path}`, { ...init, headers: { ...AUTH, ...init.headers, ...headers } });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

describe('npm run mock', () => {
  it.each(declared)('answers $name with $status ($label) when asked with Prefer', async ({ op, status, example }) => {
    const observed = await call(op, { Prefer: example ? `code=${status}, example=${example}` : `code=${status}` });
    expect(observed.status).toBe(status);
    expect(checker.checkResponse(op.name, observed)).toEqual([]);
    const value = example ? resolveRef<ExampleObject>(doc, doc.components?.examples?.[example]) : undefined;
    if (value) expect(JSON.parse(observed.text)).toEqual(value.value);
    else expect(observed.text).toBe('');
    // The headers the example goes with, and what the lint rule asks of them.
    for (const [name, sent] of Object.entries(value?.['x-headers'] ?? {})) expect(observed.headers.get(name), name).toBe(String(sent));
    const body = observed.text ? (JSON.parse(observed.text) as unknown) : undefined;
    expect(responseProblems({ status, headers: Object.fromEntries(observed.headers), body })).toEqual([]);
  });

  it(`serves the API under ${BASE_PATH} only, like the real server`, async () => {
    const response = await fetch(`${new URL(mock.url).origin}/pets`, { headers: AUTH });
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ code: 'not_found', status: 404 });
  });

  it('logs a line per request, as the client got it', async () => {
    await fetch(`${mock.url}/pets?limit=0`, { headers: AUTH });
    await expect.poll(() => mock.output()).toContain(`GET ${BASE_PATH}/pets?limit=0 → 400`);
  });
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

/** Status, header names and body (a 400's details in a fixed order) of one answer. */
async function answer(baseUrl: string, path: string, init: RequestInit) {
  const response = await fetch(`${baseUrl}${path}`, init);
  const text = await response.text();
  const body = text ? (JSON.parse(text) as { details?: { field: string; message: string }[] }) : undefined;
  body?.details?.sort((a, b) => `${a.field} ${a.message}`.localeCompare(`${b.field} ${b.message}`));
  return { status: response.status, headers: headerNames(response), body };
}

/** The same request to the service (its key) and the mock (any bearer token): the answers as the test compares them. */
async function both(op: Operation, change: (init: RequestInit, path: string) => [string, RequestInit], bearer = true) {
  const { path, init } = exampleRequest(doc, op);
  const [changedPath, changed] = change(init, path);
  const withKey = (token: string): RequestInit => ({
    ...changed,
    headers: { ...(changed.headers as Record<string, string>), ...(bearer ? { Authorization: `Bearer ${token}` } : {}) },
  });
  return {
    service: await answer(server.baseUrl, changedPath, withKey(key)),
    mock: await answer(mock.url, changedPath, withKey('as_prod_mock')),
  };
}

const withBody = operations.filter((op) => op.requestBody !== null);
const withQuery = operations.filter((op) => op.parameters.some((p) => p.in === 'query'));

// Each operation of the contract, the same requests to both: the mock's refusals, error bodies and headers are the service's.
describe('the mock refuses as the service does', () => {
  it.each(operations)('$name without credentials: 401, same body and headers', async (op) => {
    const { service, mock: fromMock } = await both(op, (init, path) => [path, init], false);
    expect(service.status).toBe(401);
    expect(fromMock).toEqual(service);
  });

  it.each(operations)('$name with an unknown query parameter: 400, same body and headers', async (op) => {
    const { service, mock: fromMock } = await both(op, (init, path) => [`${path}${path.includes('?') ? '&' : '?'}colour=red`, init]);
    expect(service.status).toBe(400);
    expect(fromMock).toEqual(service);
  });

  it.each(withQuery)('$name with a query parameter its schema refuses: 400, same body and headers', async (op) => {
    const name = op.parameters.find((p) => p.in === 'query')!.name;
    const { service, mock: fromMock } = await both(op, (init, path) => [`${path.split('?')[0]}?${name}=${'x'.repeat(1000)}`, init]);
    expect(service.status).toBe(400);
    expect(fromMock).toEqual(service);
  });

  it.each(withBody)('$name with a body past 16 KiB: 413, same body and headers', async (op) => {
    const body = JSON.stringify({ name: 'x'.repeat(17 * 1024) });
    const { service, mock: fromMock } = await both(op, (init, path) => [path, { ...init, body }]);
    expect(service.status).toBe(413);
    expect(fromMock).toEqual(service);
  });

  it.each(withBody)('$name with a body of a media type it does not take: 415, same body and headers', async (op) => {
    const { service, mock: fromMock } = await both(op, (init, path) => [
      path,
      { ...init, headers: { ...(init.headers as Record<string, string>), 'Content-Type': 'text/plain' }, body: 'Rex' },
    ]);
    expect(service.status).toBe(415);
    expect(fromMock).toEqual(service);
  });

  it.each(withBody)('$name, a first valid request: the headers the service sends', async (op) => {
    const { service, mock: fromMock } = await both(op, (init, path) => [path, init]);
    expect(fromMock.status).toBe(service.status);
    expect(fromMock.headers).toEqual(service.headers);
  });
});
