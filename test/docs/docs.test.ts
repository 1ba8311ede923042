import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserTestsEnabled, launchChromium } from '../support/chromium.js';
import { ROOT, run } from '../support/run.js';

const workDir = mkdtempSync(join(tmpdir(), 'animal-store-docs-'));
const output = join(workDir, 'index.html');
let html = '';

beforeAll(async () => {
  // The same command `npm run docs` runs, into a folder of the test's own.
  const result = await run('npm', ['run', '-s', 'docs', '--', '--output', output]);
  expect(result.code, result.stdout + result.stderr).toBe(0);
  html = readFileSync(output, 'utf8');
}, 120_000);
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

describe('npm run docs', () => {
  it('writes one self-contained HTML page that loads nothing from the network', () => {
    expect(html.length).toBeGreaterThan(100_000);
    expect(html).not.toMatch(/<script[^>]+src=["']?(https?:)?\/\//i);
    expect(html).not.toMatch(/<link[^>]+rel=["']?stylesheet[^>]+href=["']?(https?:)?\/\//i);
    expect(html).not.toMatch(/@import\s+url\(["']?(https?:)?\/\//i);
  });

  it.skipIf(!browserTestsEnabled)('shows the three operations and marks getPet deprecated when opened offline', async () => {
    const browser = await launchChromium();
    try {
      const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
      const external: string[] = [];
      await page.route('**/*', (route) => {
        const request = route.request();
        const url = request.url();
        if (url.startsWith('file:') || url.startsWith('data:') || url.startsWith('blob:')) return route.continue();
        // Redoc's "API docs by" badge tries a logo from a CDN and hides itself when that
        // fails; anything else from the network would make the page depend on it.
        if (request.resourceType() !== 'image') external.push(`${request.resourceType()} ${url}`);
        return route.abort();
      });
      await page.goto(pathToFileURL(output).href);
      await page.getByText('Plans and rate limits').first().waitFor({ timeout: 20_000 });
      await page.getByText('Pets', { exact: true }).first().click();

      for (const summary of ['List animals', 'Add an animal', 'Fetch an animal']) {
        await page.getByText(summary, { exact: true }).first().waitFor({ timeout: 10_000 });
      }
      // The operations panel of the tag marks GET /pets/{petId}, and only it, deprecated (the
      // badge's text is lower case; CSS capitalises it).
      const operationLinks = page.locator('a').filter({ hasText: /^\s*(get|post)\s*\/pets/i });
      await operationLinks.filter({ hasText: /deprecated\s*$/i }).first().waitFor({ timeout: 10_000 });
      await expect(operationLinks.count()).resolves.toBe(3);
      const deprecatedLinks = operationLinks.filter({ hasText: /deprecated\s*$/i });
      await expect(deprecatedLinks.count()).resolves.toBe(1);
      await expect(deprecatedLinks.first().innerText()).resolves.toMatch(/\/pets\/\{petId\}/);

      await page.getByText('Fetch an animal', { exact: true }).first().click();
      await page.getByRole('heading', { name: 'Fetch an animal' }).waitFor({ timeout: 10_000 });
      await page.getByText(/^deprecated$/i).first().waitFor({ timeout: 10_000 });
      await page.getByText(/will be removed on 5 December 2030/).first().waitFor({ timeout: 10_000 });

      mkdirSync(join(ROOT, 'test-results'), { recursive: true });
      await page.screenshot({ path: join(ROOT, 'test-results', 'docs-getPet.png') });
      expect(external).toEqual([]);
    } finally {
      await browser.close();
    }
  });
});
