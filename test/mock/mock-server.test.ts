import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockServer, type MockServer } from '../../src/mock/mock-server.js';
import { loadSpec, resolveRef } from '../../src/spec/load-spec.js';
import { listOperations } from '../../src/spec/operations.js';
import { ContractChecker } from '../contract/conformance.js';
import { bin, ROOT, run } from '../support/run.js';

const doc = loadSpec();
const checker = new ContractChecker(doc);
const AUTH = { Authorization: 'Bearer as_prod_mock' };

/** A request each operation accepts as valid, so the mock answers with the status asked for. */
const validRequest: Record<string, { path: string; init: RequestInit }> = {
  listPets: { path: '/pets?limit=5', init: {} },
  createPet: {
    path: '/pets',
    init: { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'Rex', categoryId: 3 }) },
  },
  getPet: { path: '/pets/42', init: {} },
};

/** Every (operation, status, example name) the contract declares. */
const declared = listOperations(doc).flatMap((op) => {
  const responses = (doc.paths[op.path]?.[op.method] as { responses: Record<string, unknown> }).responses;
  return Object.entries(responses).flatMap(([status, raw]) => {
    const response = resolveRef<{ content?: Record<string, { examples?: Record<string, unknown> }> }>(doc, raw);
    const examples = Object.keys(response.content?.['application/json']?.examples ?? {});
    return examples.map((example) => ({ operationId: op.operationId, status: Number(status), example }));
  });
});

let mock: MockServer;
beforeAll(async () => {
  mock = await startMockServer({ port: 0 });
}, 60_000);
afterAll(() => mock?.close());

async function call(operationId: string, headers: Record<string, string>) {
  const { path, init } = validRequest[operationId]!;
  const response = await fetch(`${mock.url}${path}`, { ...init, headers: { ...AUTH, ...(init.headers as object), ...headers } });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

describe('npm run mock', () => {
  it('declares a named example for every response of every operation', () => {
    for (const op of listOperations(doc)) {
      const statuses = Object.keys((doc.paths[op.path]?.[op.method] as { responses: object }).responses);
      for (const status of statuses) {
        expect(declared.some((d) => d.operationId === op.operationId && d.status === Number(status)), `${op.operationId} ${status}`).toBe(true);
      }
    }
  });

  it.each(declared)('answers $operationId with $status ($example) when asked with Prefer', async ({ operationId, status, example }) => {
    const observed = await call(operationId, { Prefer: `code=${status}, example=${example}` });
    expect(observed.status).toBe(status);
    expect(checker.checkResponse(operationId, observed)).toEqual([]);
    const value = resolveRef<{ value: unknown }>(doc, doc.components?.examples?.[example]).value;
    expect(JSON.parse(observed.text)).toEqual(value);
  });

  it('serves the API under /v1 only, like the real server', async () => {
    const response = await fetch(`${mock.url.replace(/\/v1$/, '')}/pets`, { headers: AUTH });
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ code: 'not_found', status: 404 });
  });

  it('answers an invalid request with 400 and one detail per offending field', async () => {
    const response = await fetch(`${mock.url}/pets?limit=0&status=lost`, { headers: AUTH });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { code: string; details: { field: string }[] };
    expect(body.code).toBe('invalid_request');
    expect(body.details.map((d) => d.field).sort()).toEqual(['query.limit', 'query.status']);
  });

  it('sends the Deprecation header in RFC 9745 form, not Prism\'s "true"', async () => {
    const observed = await call('getPet', {});
    expect(observed.headers.get('deprecation')).toMatch(/^@\d+$/);
    expect(observed.headers.get('sl-violations')).toBeNull();
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
});
