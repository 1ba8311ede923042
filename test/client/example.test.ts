import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, run } from '../support/run.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

let server: TestServer;
beforeAll(async () => {
  // The example imports the package by name, so it runs what `npm run build` made.
  const build = await run('npm', ['run', '-s', 'build']);
  expect(build.code, build.stdout + build.stderr).toBe(0);
  server = await startTestServer();
}, 120_000);
afterAll(() => server?.close());

describe('examples/quickstart.ts', () => {
  it('uses the client through the package exports against a running server', async () => {
    const key = await server.newKey('free');
    await server.store.createPet({ name: 'Tom', categoryId: 1, status: 'available' });
    const result = await run(process.execPath, ['--import', 'tsx', `${ROOT}examples/quickstart.ts`], {
      env: { ANIMAL_STORE_URL: server.baseUrl, ANIMAL_STORE_KEY: key },
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^added Rex as #\d+ \(available\)$/m);
    expect(result.stdout).toContain('available animals: 2');
    expect(result.stdout).toContain('deprecated: GET /pets/{petId} (sunset 2030-12-05)');
    // POST, one page of the list, GET: three requests of the Free plan's 60.
    expect(result.stdout).toContain('rate limit: 57 of 60 left');
    const source = await import('node:fs').then((fs) => fs.readFileSync(`${ROOT}examples/quickstart.ts`, 'utf8'));
    expect(source).toContain("from 'animal-store'");
    expect(source).not.toMatch(/from '\.\.?\//);
  });
});
