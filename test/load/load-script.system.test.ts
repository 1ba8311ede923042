import { describe, expect, it } from 'vitest';
import { run } from '../support/run.js';

/** A short run of `npm run load` (the minute-long run is for people, see docs/operators.md). */
describe('npm run load', () => {
  it('drives keys past their limits and reports accepted within them, no 5xx, and the server memory', async () => {
    const { code, stdout, stderr } = await run(process.execPath, [
      '--import',
      'tsx',
      'scripts/load.ts',
      '--duration',
      '3s',
      '--rate',
      '60',
      '--plans',
      'free',
    ]);
    expect(code, stderr + stdout).toBe(0);
    const rows = stdout.split('\n').filter((line) => /^free /.test(line));
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      // plan, client, "60/min", "1000/day", allowed, sent, accepted, 429, banned, 5xx, no answer, verdict
      const [allowed, sent, accepted, refused, banned, serverErrors, noAnswer] = row.split(/\s+/).slice(4, 11).map(Number);
      expect([60, 120], row).toContain(allowed);
      expect(accepted, row).toBeLessThanOrEqual(allowed!);
      // 60 times the per-minute limit for 3 s is three minutes' allowance, even across a minute's end: some are refused.
      expect(refused! + banned!, row).toBeGreaterThan(0);
      expect(sent, row).toBe(accepted! + refused! + banned! + serverErrors! + noAnswer!);
      expect([serverErrors, noAnswer], row).toEqual([0, 0]);
      expect(row).toMatch(/ok: accepted <= allowed$/);
    }
    expect(stdout).toMatch(/Server memory \(RSS\): before \d+\.\d MiB, .* after \d+\.\d MiB/);
  }, 60_000);

  it('explains itself with --help and refuses a bad option', async () => {
    const help = await run(process.execPath, ['--import', 'tsx', 'scripts/load.ts', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/--duration D/);
    const bad = await run(process.execPath, ['--import', 'tsx', 'scripts/load.ts', '--duration', 'soon']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--duration must be like 60, 60s or 2m/);
  });
});
