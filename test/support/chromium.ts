import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { atEnd } from './processes.js';

/** Debian's Chromium; `.ci/run` installs it when missing. */
const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Whether browser tests run: always in CI (where a missing browser is a failure), elsewhere
 * only when Chromium is installed, and a skipped run says why.
 */
export const browserTestsEnabled = (() => {
  if (process.env.CI || existsSync(CHROMIUM_PATH)) return true;
  console.warn(`Browser tests skipped: no Chromium at ${CHROMIUM_PATH} (apt-get install -y chromium, or set CHROMIUM_PATH).`);
  return false;
})();

/** Launches headless Chromium with no background network traffic; closed when the test (or file) that launched it ends. */
export async function launchChromium(): Promise<Browser> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  atEnd(() => browser.close());
  return browser;
}
