import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killAtEnd, outputOf } from '../support/processes.js';
import { ROOT, run } from '../support/run.js';

// Supervisors and Docker signal the process they started: for `npm start` and `npm run serve`
// that is npm, whose shell must not leave the service running behind it.

const dir = mkdtempSync(join(tmpdir(), 'animal-store-npm-signals-'));
beforeAll(async () => {
  const build = await run('npm', ['run', '-s', 'build']);
  expect(build.code, build.stderr).toBe(0);
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.each([
  ['npm run serve', 'serve', 'SIGTERM'],
  ['npm run serve', 'serve', 'SIGINT'],
  ['npm start', 'start', 'SIGTERM'],
] as const)('%s', (_label, script, signal) => {
  it(`stops the service, not only npm, on ${signal}, and exits 0`, async () => {
    const child = spawn('npm', ['run', '-s', script], {
      cwd: ROOT,
      env: {
        ...process.env,
        PORT: '0',
        HOST: '127.0.0.1',
        DATABASE_PATH: join(dir, `${script}-${signal}.db`),
        NODE_ENV: 'production',
        LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      // A group of its own, killed whole when the test ends: what npm leaves behind goes too.
      detached: true,
    });
    killAtEnd(child, { group: true });
    const npm = outputOf(child);
    const origin = `http://127.0.0.1:${(await npm.written(/"port":(\d+)/))[1]}`;
    expect((await fetch(`${origin}/healthz`)).status).toBe(200);
    child.kill(signal);
    expect(await npm.exited).toBe(0);
    expect(npm.stdout()).toContain('"msg":"stopped"');
    // Nothing is left answering on the port.
    await expect(fetch(`${origin}/healthz`)).rejects.toThrow();
  }, 60_000);
});
