import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpProblem } from 'contract-kit';
import { serveContracts } from './serve.js';

type Served = Awaited<ReturnType<typeof serveContracts>>;
let both: Served;

/** The library contract's own error body: `{ error: { kind, text, fields } }`. */
const libraryErrors = (problem: HttpProblem, { contentType }: { contentType: string }) => ({
  contentType,
  body: { error: { kind: problem.code, text: problem.message, fields: problem.details.map((d) => d.field) } },
});

beforeAll(async () => {
  // The rail contract's notFound and errorHandler are the ones mounted (serveContracts mounts the last's).
  both = await serveContracts([
    [
      'library-3.0.yaml',
      {
        handlers: { listBooks: () => ({ status: 200, body: [{ title: 'Dune', copies: 2 }] }) },
        errors: libraryErrors,
        security: { oauth: (credentials) => ('token' in credentials ? { caller: 'librarian', scopes: ['books:write'] } : undefined) },
      },
    ],
    ['rail-3.1.yaml', { handlers: { getStations: () => ({ status: 200, body: [{ id: 1, name: 'Central' }] }) } }],
  ]);
});
afterAll(() => both.close());

describe('two contracts on one app, each under its own base path', () => {
  it("serves each contract's operations", async () => {
    expect(both.kits.map((kit) => kit.basePaths)).toEqual([['/library'], ['/api+v2', '/mock']]);
    const books = await both.fetch('/library/books');
    expect(books.status).toBe(200);
    expect(await books.json()).toEqual([{ title: 'Dune', copies: 2 }]);
    const stations = await both.fetch('/mock/stations');
    expect(stations.status).toBe(200);
    expect(await stations.json()).toEqual([{ id: 1, name: 'Central' }]);
  });

  it('refuses under each base path in that contract’s error body, whichever errorHandler is mounted', async () => {
    const lost = await both.fetch('/library/nowhere');
    expect(lost.status).toBe(404);
    expect(await lost.json()).toEqual({ error: { kind: 'not_found', text: 'Nothing is at /library/nowhere.', fields: [] } });

    const invalid = await both.fetch('/library/books', {
      method: 'POST',
      headers: { Authorization: 'Bearer any', 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'title=&copies=none',
    });
    expect(invalid.status).toBe(400);
    expect(invalid.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(((await invalid.json()) as { error: { fields: string[] } }).error.fields.sort()).toEqual(['body.copies', 'body.title']);

    const wrongMethod = await both.fetch('/mock/stations', { method: 'DELETE' });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('GET, HEAD');
    expect(wrongMethod.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
    expect(await wrongMethod.json()).toMatchObject({ status: 405, code: 'method_not_allowed' });
  });

  it('answers 404 through the notFound mounted for a path under no contract', async () => {
    const lost = await both.fetch('/elsewhere/books');
    expect(lost.status).toBe(404);
    expect(lost.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
    expect(await lost.json()).toMatchObject({ status: 404, code: 'not_found', detail: 'Nothing is at /elsewhere/books.' });
  });

  it("does not route one contract's path under the other's base path", async () => {
    const lost = await both.fetch('/library/stations');
    expect(lost.status).toBe(404);
    expect(await lost.json()).toMatchObject({ error: { kind: 'not_found' } });
    expect(both.errors).toEqual([]);
  });
});

describe("a major version served beside its successor, its end named in the contract's info", () => {
  let versions: Served;
  const stations = () => ({ status: 200 as const, body: [{ id: 1, name: 'Central' }] });
  beforeAll(async () => {
    versions = await serveContracts([
      [
        'rail-3.1.yaml',
        {
          basePath: '/v1',
          handlers: { getStations: stations },
          edit: (contract) => Object.assign(contract.info, { 'x-deprecated-at': '2026-01-01', 'x-sunset': '2030-12-05' }),
        },
      ],
      ['rail-3.1.yaml', { basePath: '/v2', handlers: { getStations: stations } }],
    ]);
  });
  afterAll(() => versions.close());

  it('sends Deprecation and Sunset on every answer of the old version, 200 or refusal, and none on the new one', async () => {
    for (const path of ['/v1/stations', '/v1/stations?limit=none']) {
      const old = await versions.fetch(path);
      expect([200, 400]).toContain(old.status);
      expect(old.headers.get('deprecation')).toBe(`@${Date.parse('2026-01-01') / 1000}`);
      expect(old.headers.get('sunset')).toBe('Thu, 05 Dec 2030 00:00:00 GMT');
    }
    const current = await versions.fetch('/v2/stations');
    expect(current.status).toBe(200);
    expect(current.headers.get('deprecation')).toBeNull();
    expect(current.headers.get('sunset')).toBeNull();
  });

  it('answers 410 once the date is past', async () => {
    const ended = await serveContracts([
      [
        'rail-3.1.yaml',
        {
          basePath: '/v1',
          handlers: { getStations: stations },
          edit: (contract) => Object.assign(contract.info, { 'x-sunset': '2020-01-01' }),
        },
      ],
    ]);
    try {
      const gone = await ended.fetch('/v1/stations');
      expect(gone.status).toBe(410);
    } finally {
      await ended.close();
    }
  });
});
