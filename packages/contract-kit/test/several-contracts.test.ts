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
