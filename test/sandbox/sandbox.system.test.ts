import { spawn } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { describe, expect, it, onTestFinished } from 'vitest';
import { animalsFromExamples } from '../../scripts/support/sandbox-seed.js';
import { loadSpec } from '../../src/contract/load-spec.js';
import { killAtEnd, outputOf } from '../support/processes.js';
import { ROOT } from '../support/run.js';
import { BASE_PATH } from '../support/base-path.js';

describe('npm run sandbox', () => {
  it("seeds the contract's example animals", () => {
    expect(animalsFromExamples(loadSpec())).toEqual([
      { name: 'Rex', categoryId: 3, status: 'available' },
      { name: 'Tom', categoryId: 1, status: 'pending' },
      { name: 'Nemo', categoryId: 7, status: 'sold' },
    ]);
  });

  it('answers the example calls it prints, and deletes its store on Ctrl+C', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', `${ROOT}scripts/sandbox.ts`, '--port', '0'], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    killAtEnd(child);
    const run = outputOf(child);
    const dir = (await run.written(/store in (\S+), deleted on exit/))[1]!;
    // Should the test end without the sandbox removing it, the test does.
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const output = (await run.written(/Press Ctrl\+C[^\n]*\n/)).input;
    const base = new RegExp(`sandbox at (http://localhost:\\d+${BASE_PATH})`).exec(output)![1]!;
    const key = (plan: string) => new RegExp(`^  ${plan}\\s+(as_prod_\\w+)`, 'm').exec(output)![1]!;
    const KEY = key('free');
    const BIG = key('enterprise');
    for (const plan of ['free', 'pro', 'business', 'enterprise']) expect(key(plan)).toMatch(/^as_prod_\w{38}$/);
    expect(existsSync(dir)).toBe(true);
    const auth = (k: string) => ({ Authorization: `Bearer ${k}` });

    const listed = (await (await fetch(`${base}/pets`, { headers: auth(KEY) })).json()) as { name: string }[];
    expect(listed.map((p) => p.name)).toEqual(['Rex', 'Tom', 'Nemo']);
    const created = await fetch(`${base}/pets`, {
      method: 'POST',
      headers: { ...auth(KEY), 'Content-Type': 'application/json' },
      body: '{"name":"Rex","categoryId":3}',
    });
    expect(created.status).toBe(201);
    const deprecated = await fetch(`${base}/pets/1`, { headers: auth(KEY) });
    expect(deprecated.headers.get('sunset')).toBe('Thu, 05 Dec 2030 00:00:00 GMT');
    expect((await fetch(`${base}/pets`)).status).toBe(401);
    // Three a minute: the fourth is refused (a later one, if a minute ended meanwhile).
    let refused: Response | undefined;
    for (let i = 0; i < 7 && !refused; i++) {
      const response = await fetch(`${base}/pets`, { headers: auth(BIG) });
      if (response.status === 429) refused = response;
      else expect(response.status).toBe(200);
    }
    expect(refused?.status).toBe(429);
    if (!refused) return;
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(((await refused.json()) as { code: string }).code).toBe('rate_limited');
    expect((await fetch(`${base}/pets/999`, { headers: auth(KEY) })).status).toBe(404);

    // A page on a local dev server (Vite's port here) may call it: the browser's preflight, then the call.
    const preflight = await fetch(`${base}/pets`, {
      method: 'OPTIONS',
      headers: {
        Origin: 'http://localhost:5173',
        'Access-Control-Request-Method': 'GET',
        'Access-Control-Request-Headers': 'authorization',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
    expect(preflight.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('authorization');
    const fromPage = await fetch(`${base}/pets?limit=1`, { headers: { ...auth(KEY), Origin: 'http://localhost:5173' } });
    expect(fromPage.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
    expect(fromPage.headers.get('access-control-expose-headers')).toMatch(/X-RateLimit-Remaining/);

    child.kill('SIGINT');
    expect(await run.exited).toBe(0);
    expect(existsSync(dir)).toBe(false);
  }, 60_000);
});
