import { basePathsOf } from 'contract-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSpec } from '../../src/contract/load-spec.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

// The version's path and the page size a request without limit gets, from the contract.
const contract = loadSpec();
const BASE = basePathsOf(contract)[0]!;
const PAGE = (contract.components!.parameters as Record<string, { schema: { default: number } }>).Limit!.schema.default;

let server: TestServer;
let key: string;
const auth = () => ({ Authorization: `Bearer ${key}` });

beforeAll(async () => {
  server = await startTestServer();
  key = await server.newKey('business');
  const statuses = ['available', 'pending', 'sold'] as const;
  for (let i = 1; i <= 250; i++) {
    await server.store.createPet({ name: `Pet ${i}`, categoryId: (i % 7) + 1, status: statuses[i % 3]! });
  }
});
afterAll(() => server?.close());

/** Follows `Link: rel="next"` from the first page; returns every page. */
async function allPages(first: string): Promise<{ ids: number[]; pages: number; links: string[] }> {
  const ids: number[] = [];
  const links: string[] = [];
  let url: string | null = first;
  let pages = 0;
  while (url) {
    const response: Response = await fetch(url, { headers: auth() });
    expect(response.status).toBe(200);
    ids.push(...((await response.json()) as { id: number }[]).map((p) => p.id));
    pages++;
    const link = response.headers.get('link');
    if (link) links.push(link);
    const next = link ? /<([^>]+)>;\s*rel="next"/.exec(link)?.[1] : undefined;
    url = next ? `${server.origin}${next}` : null;
  }
  return { ids, pages, links };
}

describe(`GET ${BASE}/pets`, () => {
  it('returns the default page of animals by id ascending, through the typed client', async () => {
    const { data, response } = await server.client(key).GET('/pets');
    expect(response.status).toBe(200);
    expect(data?.map((p) => p.id)).toEqual(Array.from({ length: PAGE }, (_, i) => i + 1));
    const cursor = Buffer.from(String(PAGE)).toString('base64url');
    expect(response.headers.get('link')).toBe(`<${BASE}/pets?limit=${PAGE}&cursor=${cursor}>; rel="next"`);
  });

  it('pages through 250 animals by following Link, each exactly once', async () => {
    const { ids, pages, links } = await allPages(`${server.baseUrl}/pets?limit=100`);
    expect(ids).toEqual(Array.from({ length: 250 }, (_, i) => i + 1));
    expect(pages).toBe(3);
    expect(links).toHaveLength(2);
  });

  it('keeps the status filter and the limit in the next link', async () => {
    const { ids } = await allPages(`${server.baseUrl}/pets?status=sold&limit=7`);
    const sold = Array.from({ length: 250 }, (_, i) => i + 1).filter((i) => i % 3 === 2);
    expect(ids).toEqual(sold);
  });

  it('returns only animals with the status asked for', async () => {
    const { data } = await server.client(key).GET('/pets', { params: { query: { status: 'pending', limit: 100 } } });
    expect(data!.length).toBeGreaterThan(0);
    expect(data!.every((p) => p.status === 'pending')).toBe(true);
  });

  it('answers the last page without a Link header', async () => {
    const { data, response } = await server
      .client(key)
      .GET('/pets', { params: { query: { limit: 100, cursor: Buffer.from('200').toString('base64url') } } });
    expect(data!.map((p) => p.id)).toEqual(Array.from({ length: 50 }, (_, i) => 201 + i));
    expect(response.headers.get('link')).toBeNull();
  });

  it('accepts limit=1 and limit=100', async () => {
    for (const limit of [1, 100]) {
      const { data } = await server.client(key).GET('/pets', { params: { query: { limit } } });
      expect(data).toHaveLength(limit);
    }
  });

  // Malformed, repeated and out-of-range limits are rows of test/hostile/catalogue.test.ts.

  it('returns 400 for an unknown status, an unknown parameter and a forged cursor', async () => {
    const cases: [string, string][] = [
      ['status=lost', 'query.status'],
      ['colour=red', 'query.colour'],
      ['cursor=abc', 'query.cursor'],
      [`cursor=${Buffer.from('-5').toString('base64url')}`, 'query.cursor'],
      // Found by the property tests: a name with dots was named with them collapsed (query.a.b).
      ['a..b=1', 'query.a..b'],
      ['x.=1', 'query.x.'],
    ];
    for (const [query, field] of cases) {
      const response = await fetch(`${server.baseUrl}/pets?${query}`, { headers: auth() });
      expect(response.status, query).toBe(400);
      expect(
        ((await response.json()) as { details: { field: string }[] }).details.map((d) => d.field),
        query,
      ).toContain(field);
    }
  });
});
