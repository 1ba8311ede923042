import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserTestsEnabled, launchChromium } from '../support/chromium.js';
import { checkReferencePage } from '../support/reference-page.js';
import { run } from '../support/run.js';

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

  it('writes the page compressed beside it, br and gzip, for the server to send as they are', () => {
    const page = readFileSync(output);
    for (const [suffix, decompress] of [
      ['.br', brotliDecompressSync],
      ['.gz', gunzipSync],
    ] as const) {
      const compressed = readFileSync(`${output}${suffix}`);
      expect(compressed.length, suffix).toBeLessThan(page.length / 3);
      expect(decompress(compressed).equals(page), suffix).toBe(true);
      expect(statSync(`${output}${suffix}`).mtimeMs, suffix).toBeGreaterThanOrEqual(statSync(output).mtimeMs);
    }
  });

  it.skipIf(!browserTestsEnabled)(
    'shows every operation of the contract, the plans and getPet deprecated when opened offline',
    async () => {
      const browser = await launchChromium();
      try {
        const blocked = await checkReferencePage(browser, pathToFileURL(output).href, 'file:', 'docs-static.png');
        expect(blocked).toEqual([]);
      } finally {
        await browser.close();
      }
    },
  );
});
