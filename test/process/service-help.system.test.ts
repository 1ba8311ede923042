// The service's own --help, from the sources (npm start) and from the compiled build (npm run
// serve): both must say how to run it and list the settings, with paths relative to the package.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, run } from '../support/run.js';

describe('the service --help', () => {
  it.each([
    ['npm start (tsx)', ['--import', 'tsx', 'src/service/main.ts', '--help']],
    ['npm run serve (compiled)', [join('dist', 'src', 'service', 'main.js'), '--help']],
  ])('%s prints the usage and every setting, then exits 0', async (label, args) => {
    if (args[0]!.startsWith('dist')) expect(existsSync(join(ROOT, args[0]!)), 'npm run build has written dist/').toBe(true);
    const { code, stdout } = await run(process.execPath, args);
    expect(code, label).toBe(0);
    expect(stdout).toMatch(/^Usage: npm start/);
    expect(stdout).toContain('npm run serve');
    for (const variable of ['PORT', 'DATABASE_URL', 'REDIS_URL', 'NODE_ENV', 'ANIMAL_STORE_ENV']) expect(stdout).toContain(variable);
    expect(stdout).toContain('data/animal-store.db');
    expect(stdout).not.toContain(ROOT);
  });
});
