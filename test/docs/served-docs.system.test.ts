import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadSpec } from '../../src/contract/load-spec.js';
import { browserTestsEnabled, launchChromium } from '../support/chromium.js';
import { checkReferencePage } from '../support/reference-page.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
}, 60_000);
afterAll(() => server?.close());

describe('the contract served by the service', () => {
  it('serves /openapi.yaml and /openapi.json without a key, with ETag and Cache-Control, and 304 when unchanged', async () => {
    const yaml = await fetch(`${server.origin}/openapi.yaml`);
    expect(yaml.status).toBe(200);
    expect(yaml.headers.get('content-type')).toBe('application/yaml; charset=utf-8');
    expect(yaml.headers.get('cache-control')).toBe('public, max-age=300, must-revalidate');
    expect(parse(await yaml.text())).toEqual(loadSpec());

    const json = await fetch(`${server.origin}/openapi.json`);
    expect(json.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await json.json()).toEqual(loadSpec());
    const etag = json.headers.get('etag')!;
    expect(etag).toMatch(/^"[\w-]+"$/);
    const again = await fetch(`${server.origin}/openapi.json`, { headers: { 'If-None-Match': etag } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
  });

  it('serves the rendered reference at /docs, self-contained', async () => {
    const response = await fetch(`${server.origin}/docs`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('etag')).not.toBeNull();
    const html = await response.text();
    expect(html.length).toBeGreaterThan(100_000);
    expect(html).not.toMatch(/<script[^>]+src=["']?(https?:)?\/\//i);
  }, 60_000);

  // The page is 2.6 MB uncompressed, without limit; one client could crowd out others.
  it.each([
    ['br', 'br'],
    ['gzip', 'gzip'],
    ['gzip;q=0, br;q=0', undefined],
    ['', undefined],
  ])(
    'serves /docs compressed for Accept-Encoding "%s"',
    async (accept, encoding) => {
      const { status, headers, bytes } = await rawGet(`${server.origin}/docs`, accept ? { 'Accept-Encoding': accept } : {});
      expect(status).toBe(200);
      expect(headers['content-encoding']).toBe(encoding);
      expect(headers.vary).toBe('Accept-Encoding');
      expect(headers['x-ratelimit-limit']).toBe('120');
      if (encoding) expect(bytes).toBeLessThan(1_000_000);
      else expect(bytes).toBeGreaterThan(1_000_000);
    },
    60_000,
  );

  it('sends the compressed copies written beside the page as they are, and compresses no page itself', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'animal-store-docs-'));
    const page = join(dir, 'index.html');
    const html = Buffer.from(`<!doctype html><title>Animal Store</title>${'<p>Rex</p>'.repeat(500)}`);
    writeFileSync(page, html);
    // Not what the server would make of the page: were it compressing the page itself, it would send other bytes.
    const written = { br: brotliCompressSync(html, { params: { [zlib.BROTLI_PARAM_QUALITY]: 1 } }), gzip: gzipSync(html, { level: 1 }) };
    writeFileSync(`${page}.br`, written.br);
    writeFileSync(`${page}.gz`, written.gzip);
    const own = await startTestServer({ docsPath: page });
    try {
      for (const encoding of ['br', 'gzip'] as const) {
        const { status, headers, body } = await rawGet(`${own.origin}/docs`, { 'Accept-Encoding': encoding });
        expect(status, encoding).toBe(200);
        expect(headers['content-encoding'], encoding).toBe(encoding);
        expect(body.equals(written[encoding]), encoding).toBe(true);
      }
      expect((await rawGet(`${own.origin}/docs`, {})).body.equals(html)).toBe(true);
    } finally {
      await own.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.skipIf(!browserTestsEnabled)(
    'shows the operations, the plans and the deprecation of getPet in Chromium',
    async () => {
      const browser = await launchChromium();
      try {
        const blocked = await checkReferencePage(browser, `${server.origin}/docs`, server.origin, 'docs-served.png');
        expect(blocked).toEqual([]);
      } finally {
        await browser.close();
      }
    },
    60_000,
  );
});

/** A GET without fetch's automatic decompression: status, headers and the bytes as sent. */
function rawGet(
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; bytes: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    request(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const body = Buffer.concat(chunks);
        resolve({ status: res.statusCode!, headers: res.headers, bytes: body.length, body });
      });
    })
      .on('error', reject)
      .end();
  });
}

describe('limits of what is served without a key', () => {
  it("answers a browser's /favicon.ico with 204 under the documents' limit, leaving the API's allowance whole", async () => {
    const own = await startTestServer({ anonymousLimits: { perMinute: 5, perDay: 100 } });
    try {
      const icon = await fetch(`${own.origin}/favicon.ico`);
      expect(icon.status).toBe(204);
      expect(icon.headers.get('cache-control')).toBe('public, max-age=86400');
      expect(icon.headers.get('x-ratelimit-limit')).toBe('120');
      for (let i = 0; i < 10; i++) await (await fetch(`${own.origin}/favicon.ico`)).arrayBuffer();
      const api = await fetch(`${own.baseUrl}/pets`);
      expect(api.status).toBe(401);
      expect(api.headers.get('x-ratelimit-remaining')).toBe('4');
    } finally {
      await own.close();
    }
  });

  it('limits documents and health checks per address, apart from each other and from the API, with the rate-limit headers', async () => {
    const own = await startTestServer({
      publicLimits: { documents: { perMinute: 3, perDay: 100 }, health: { perMinute: 5, perDay: 100 } },
    });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) {
        const response = await fetch(`${own.origin}/openapi.json`);
        await response.arrayBuffer();
        statuses.push(response.status);
        expect(response.headers.get('x-ratelimit-limit')).toBe('3');
      }
      expect(statuses).toEqual([200, 200, 200, 429]);
      const refused = await fetch(`${own.origin}/docs`);
      expect(refused.status).toBe(429);
      expect(((await refused.json()) as { code: string }).code).toBe('rate_limited');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      // Refused again and again, past BAN_AFTER_REFUSALS: still only rate limited, never banned
      // (a load balancer's probes must come back as soon as the minute does).
      for (let i = 0; i < 15; i++) await (await fetch(`${own.origin}/openapi.yaml`)).arrayBuffer();
      expect(((await (await fetch(`${own.origin}/openapi.yaml`)).json()) as { code: string }).code).toBe('rate_limited');
      // Health checks have their own allowance.
      const health = await fetch(`${own.origin}/healthz`);
      expect(health.status).toBe(200);
      expect(health.headers.get('x-ratelimit-remaining')).toBe('4');
      // And the API's is untouched: a request without a key is a 401, not a 429.
      expect((await fetch(`${own.baseUrl}/pets`)).status).toBe(401);
    } finally {
      await own.close();
    }
  });
});
