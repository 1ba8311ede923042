import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { build } from 'esbuild';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_ORIGINS } from '../../src/service/allowed-origins.js';
import { browserTestsEnabled, launchChromium } from '../support/chromium.js';
import { ROOT, run } from '../support/run.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

// A frontend team's page, in real Chromium, served from another origin than the API, calling it
// through the published client package (built, then bundled with esbuild as an app would).

const SCREENSHOT = join(ROOT, 'test-results', 'browser-client.png');

/** A clock that runs in real time, placed at second `second` of a minute window when created. */
function clockAtSecond(second: number) {
  const offset = (((second * 1000 - (Date.now() % 60_000)) % 60_000) + 60_000) % 60_000;
  return { now: () => Date.now() + offset };
}

let api: TestServer;
let pages: Server;
let pageOrigin: string;
let browser: Browser;

beforeAll(async () => {
  if (!browserTestsEnabled) return;
  const built = await run('npm', ['run', '-s', 'build', '-w', '@animal-store/client']);
  expect(built.code, built.stdout + built.stderr).toBe(0);
  // The package as published (its exports, its dist), resolved through node_modules.
  const bundle = await build({
    entryPoints: [join(ROOT, 'test', 'browser', 'client-page.ts')],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
  });
  const script = bundle.outputFiles[0]!.text;
  expect(script).not.toMatch(/\bfrom\s*["']node:|require\(["']node:/);
  const html =
    '<!doctype html><meta charset="utf-8"><title>Animal Store client in a browser</title>' +
    '<style>body{font:14px system-ui;margin:2em}th{text-align:left;padding-right:1em}td,th{border-bottom:1px solid #ddd;padding:4px}pre{white-space:pre-wrap}</style>' +
    '<h1>Animal Store client in a browser</h1><table id="log"></table><pre id="result"></pre>' +
    '<script type="module" src="/app.js"></script>';
  pages = createServer((req, res) => {
    if (req.url?.startsWith('/app.js')) res.writeHead(200, { 'Content-Type': 'text/javascript' }).end(script);
    else res.writeHead(200, { 'Content-Type': 'text/html' }).end(html);
  });
  await new Promise<void>((resolve) => pages.listen(0, '127.0.0.1', () => resolve()));
  pageOrigin = `http://127.0.0.1:${(pages.address() as AddressInfo).port}`;
  // The sandbox's origins; a clock at second 45 of its minute, so the Free key's Retry-After is short.
  api = await startTestServer({ corsOrigins: LOCAL_ORIGINS, clock: clockAtSecond(45) });
  for (const name of ['Tom', 'Kitty', 'Rex', 'Bella', 'Max']) await api.store.createPet({ name, categoryId: 1, status: 'available' });
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await api?.close();
  if (pages) await new Promise((resolve) => pages.close(resolve));
});

describe.runIf(browserTestsEnabled)('the client package in Chromium, cross-origin', () => {
  it('lists, follows pages, creates once with an Idempotency-Key, reads the rate-limit headers and waits out a 429', async () => {
    const key = await api.newKey('free');
    const page = await browser.newPage();
    const consoleErrors: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
    expect(new URL(api.baseUrl).origin).not.toBe(pageOrigin);
    await page.goto(`${pageOrigin}/?api=${encodeURIComponent(api.baseUrl)}&key=${encodeURIComponent(key)}`);
    // The page waits out one Retry-After: some 15 s (the API's clock starts at second 45 of its
    // minute), 60 s at most; 90 s leaves a loaded machine room for its 70 requests.
    await page.waitForSelector('#result[data-done]', { timeout: 90_000 });
    mkdirSync(join(ROOT, 'test-results'), { recursive: true });
    writeFileSync(SCREENSHOT, await page.screenshot({ fullPage: true }));
    const result = JSON.parse((await page.textContent('#result')) ?? '{}');
    expect(result.error).toBeUndefined();

    // Readable from JavaScript only because the API exposes them to this origin.
    expect(result.firstPage.status).toBe(200);
    expect(result.firstPage.names).toEqual(['Tom', 'Kitty']);
    expect(result.firstPage.remaining).toBe('59');
    expect(result.firstPage.link).toMatch(/rel="next"/);
    expect(result.allPets).toBe(5);
    expect(result.pagesFollowed).toBe(2);

    expect(result.created.status).toBe(201);
    expect(result.created.replayedStatus).toBe(201);
    expect(result.created.replayedId).toBe(result.created.id);
    expect(result.created.replayedHeader).toBe('true');

    expect(result.limit.refusedWith).toEqual([429]);
    const retryAfter = Number(result.limit.retryAfter);
    expect(retryAfter).toBeGreaterThan(0);
    expect(result.limit.waitedMs).toBeGreaterThanOrEqual(retryAfter * 1000 - 1000);
    expect(result.limit.finalStatus).toBe(200);
    expect(result.limit.remainingAfter).toBe('59');
    // The preflights went through: no CORS error in the console. Chromium logs the 429 itself as
    // a failed resource load; nothing else may appear.
    expect(consoleErrors.filter((text) => !/status of 429/.test(text))).toEqual([]);
    expect(consoleErrors.join('\n')).not.toMatch(/CORS|Access-Control/);
    await page.close();
  }, 120_000);

  it('follows the animals added, as server-sent events through the client, in the order they were added', async () => {
    const key = await api.newKey('free');
    const page = await browser.newPage();
    await page.goto(`${pageOrigin}/?api=${encodeURIComponent(api.baseUrl)}&key=${encodeURIComponent(key)}&follow=2`);
    // Empty until the first animal comes: attached, not yet visible.
    await page.waitForSelector('#result[data-following]', { state: 'attached' });
    // The page's request reaches the service before the animals are added.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    for (const name of ['Live Rex', 'Live Tom']) {
      const { response } = await api.client(key).POST('/pets', { body: { name, categoryId: 1 } });
      expect(response.status).toBe(201);
    }
    await page.waitForSelector('#result[data-done]', { timeout: 30_000 });
    expect(JSON.parse((await page.textContent('#result')) ?? '{}')).toEqual({ followed: ['Live Rex', 'Live Tom'] });
    await page.close();
  }, 60_000);
});
