// What the service does at start against two costs of Node.js 24 and 26 that every request or
// every start would otherwise pay: url.parse()'s deprecation check (src/service/legacy-url-parse.ts)
// and undici, which an ES import of node:http loads (contract-kit's src/serve/serve.ts).
import { describe, expect, it } from 'vitest';
import { ROOT, run } from '../support/run.js';

/** What node prints on stderr and stdout for `script`, an ES module run through tsx from the repository. */
async function runModule(script: string): Promise<{ stdout: string; stderr: string }> {
  const { code, stdout, stderr } = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script]);
  expect(code, stderr).toBe(0);
  return { stdout, stderr };
}

const source = (path: string) => JSON.stringify(`${ROOT}${path}`);
const urlParse = "(await import('node:url')).parse('/v1/pets?limit=20');";
const warnsWithout = (await runModule(urlParse)).stderr.includes('DEP0169');

describe.skipIf(!warnsWithout)(
  `url.parse() after the service's start (${warnsWithout ? 'this Node.js warns of it' : 'skipped: this Node.js does not warn of it'})`,
  () => {
    it('prints no deprecation warning, at start or later', async () => {
      expect((await runModule(`await import(${source('src/service/legacy-url-parse.ts')});\n${urlParse}`)).stderr).toBe('');
    });
  },
);

// process.moduleLoadList names the built-in modules loaded so far (Node's own tests read it).
const listsModules = Array.isArray((process as unknown as { moduleLoadList?: unknown }).moduleLoadList);

describe.skipIf(!listsModules)(
  `the service's modules (${listsModules ? 'loaded' : 'skipped: this Node.js does not list its modules'})`,
  () => {
    it('load no undici: the service makes no HTTP requests and opens no WebSocket', async () => {
      // main.ts with --help loads every module the service imports before it starts, and prints its help.
      const { stdout } = await runModule(
        `process.argv.push('--help');\nawait import(${source('src/service/main.ts')});\n` +
          'console.log(JSON.stringify(process.moduleLoadList.filter((name) => name.includes("undici"))));',
      );
      expect(stdout.trim().split('\n').at(-1)).toBe('[]');
    });
  },
);
