import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadSpec } from '../../src/spec/load-spec.js';
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

  it.skipIf(!browserTestsEnabled)('shows the operations, the plans and the deprecation of getPet in Chromium', async () => {
    const browser = await launchChromium();
    try {
      const blocked = await checkReferencePage(browser, `${server.origin}/docs`, server.origin, 'docs-served.png');
      expect(blocked).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 60_000);
});
