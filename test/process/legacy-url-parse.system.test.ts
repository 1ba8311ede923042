// The service settles Node.js's url.parse() deprecation check once at start (see
// src/service/legacy-url-parse.ts): a later url.parse() from outside node_modules neither warns
// nor takes the stack trace that decides whether to warn.
import { describe, expect, it } from 'vitest';
import { ROOT, run } from '../support/run.js';

/** What node prints on stderr for `url.parse()` called from outside node_modules, after `before`. */
async function warningsOfUrlParse(before: string): Promise<string> {
  const script = `${before}\n(await import('node:url')).parse('/v1/pets?limit=20');`;
  const { code, stderr } = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script]);
  expect(code).toBe(0);
  return stderr;
}

const warnsWithout = await warningsOfUrlParse('');

describe.skipIf(!warnsWithout.includes('DEP0169'))(
  `url.parse() after the service's start (${warnsWithout.includes('DEP0169') ? 'this Node.js warns of it' : 'skipped: this Node.js does not warn of it'})`,
  () => {
    it('prints no deprecation warning, at start or later', async () => {
      expect(await warningsOfUrlParse(`await import(${JSON.stringify(`${ROOT}src/service/legacy-url-parse.ts`)});`)).toBe('');
    });
  },
);
