import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { expect } from 'vitest';
import { loadSpec } from '../../src/contract/load-spec.js';
import { listOperations } from 'contract-kit';
import { ROOT } from './run.js';

/**
 * Opens the rendered reference at `url` in Chromium with every request outside `allowedOrigin`
 * blocked, checks what a reader must find (every operation of the contract, the plans table,
 * the deprecated ones marked so, getPet with its removal date, a wide text column at 1280
 * pixels), saves a screenshot to test-results/, and returns the requests it had to block and any
 * request for a favicon: with the network blocked, the page must ask nothing of anywhere else.
 */
export async function checkReferencePage(browser: Browser, url: string, allowedOrigin: string, screenshot: string): Promise<string[]> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  // Redoc renders the page in about a second; the waits below are bounded only for a page that
  // never shows what they wait for, far beyond what a loaded machine takes.
  page.setDefaultTimeout(30_000);
  const blocked: string[] = [];
  await page.route('**/*', (route) => {
    const request = route.request();
    const target = request.url();
    // The page declares no icon: a request for one would cost the reader's documents allowance.
    if (new URL(target).pathname === '/favicon.ico') blocked.push(`${request.resourceType()} ${target}`);
    if (target.startsWith(allowedOrigin) || target.startsWith('data:') || target.startsWith('blob:')) return route.continue();
    blocked.push(`${request.resourceType()} ${target}`);
    return route.abort();
  });
  await page.goto(url);
  await page.getByText('Plans and rate limits').first().waitFor();
  await page.getByText('Plans and rate limits').first().click();
  const plans = page.locator('table').filter({ hasText: 'Requests per minute' }).first();
  await plans.waitFor();
  const planText = await plans.innerText();
  for (const row of [/Free\s+60\s+1,000/, /Pro\s+300\s+10,000/, /Business\s+1,000\s+100,000/, /Enterprise/]) expect(planText).toMatch(row);

  const operations = listOperations(loadSpec());
  await page.getByText('Pets', { exact: true }).first().click();
  for (const { summary } of operations) {
    await page.getByText(summary, { exact: true }).first().waitFor();
  }
  // The tag's list of operations marks the deprecated ones (GET /pets/{petId}), and only those,
  // deprecated (the badge's text is lower case, Redoc shortens delete and options; CSS capitalises it).
  const operationLinks = page.locator('a').filter({ hasText: /^\s*(get|post|put|patch|delete|del|head|options|opts|trace)\s*\//i });
  await operationLinks
    .filter({ hasText: /deprecated\s*$/i })
    .first()
    .waitFor();
  expect(await operationLinks.count()).toBe(operations.length);
  const deprecatedLinks = operationLinks.filter({ hasText: /deprecated\s*$/i });
  expect(await deprecatedLinks.count()).toBe(operations.filter((op) => op.deprecated).length);
  expect(await deprecatedLinks.first().innerText()).toMatch(/\/pets\/\{petId\}/);

  await page.getByText('Fetch an animal', { exact: true }).first().click();
  await page.getByRole('heading', { name: 'Fetch an animal' }).waitFor();
  await page
    .getByText(/^deprecated$/i)
    .first()
    .waitFor();
  await page
    .getByText(/will be removed\s+on 5 December 2030/)
    .first()
    .waitFor();

  // At 1280 pixels the text is one wide column (the stacked layout), not squeezed beside the examples.
  const textWidth = await page
    .getByRole('heading', { name: 'Plans and rate limits' })
    .first()
    .evaluate((heading) => heading.getBoundingClientRect().width);
  expect(textWidth).toBeGreaterThan(700);
  expect(await page.evaluate(() => document.compatMode), 'standards mode: the page starts with <!DOCTYPE html>').toBe('CSS1Compat');

  mkdirSync(join(ROOT, 'test-results'), { recursive: true });
  // Redoc swaps the content in after navigation; wait for the operation to be painted. Only the
  // screenshot's look depends on this pause, no check.
  await page.getByRole('heading', { name: 'Fetch an animal' }).first().scrollIntoViewIfNeeded();
  await page.waitForTimeout(500);
  await page.screenshot({ path: join(ROOT, 'test-results', screenshot) });
  await page.close();
  return blocked;
}
