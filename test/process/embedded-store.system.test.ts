import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, run } from '../support/run.js';
import { startServiceProcess } from '../../scripts/support/server-process.js';
import { keyInFile } from '../support/key-in-file.js';
import { killAtEnd } from '../support/processes.js';

// With better-sqlite3 12 on Node 24.19+, the service aborted at start 7 times out of 8
// on one core (`Assertion failed: (env) != nullptr`, a Statement finalized by the garbage
// collector outside a JavaScript context). The embedded store must never abort the process:
// 20 starts and stops of the compiled service on one core, and 20 runs of a process that
// prepares 10,000 statements and forces collections, all exit 0.

const RUNS = 20;
const dir = mkdtempSync(join(tmpdir(), 'animal-store-embedded-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe(`the service on the embedded store, on one core (Node ${process.versions.node})`, () => {
  it(`starts, answers and stops with exit code 0, ${RUNS} times out of ${RUNS}`, async () => {
    const databasePath = join(dir, 'start-stop.db');
    const key = await keyInFile(databasePath);
    const outcomes: string[] = [];
    for (let i = 0; i < RUNS; i++) {
      const server = await startServiceProcess(databasePath, {}, { compiled: true, core: 0, onSpawn: killAtEnd });
      const response = await fetch(`${server.baseUrl}/pets?limit=5`, { headers: { Authorization: `Bearer ${key}` } });
      await response.arrayBuffer();
      server.child.kill('SIGTERM');
      const code = await server.exited;
      outcomes.push(`${response.status} exit ${String(code)}`);
      if (code !== 0) outcomes.push(server.output());
    }
    expect(outcomes).toEqual(Array.from({ length: RUNS }, () => '200 exit 0'));
  }, 180_000);

  it(`survives garbage collection over 10,000 prepared statements, ${RUNS} times out of ${RUNS}`, async () => {
    const endings = ['exit', 'natural', 'close'];
    const failures: string[] = [];
    for (let i = 0; i < RUNS; i++) {
      const ending = endings[i % endings.length]!;
      const databasePath = join(dir, `gc-${i}.db`);
      const result = await run('taskset', [
        '-c',
        '0',
        process.execPath,
        '--expose-gc',
        '--import',
        'tsx',
        `${ROOT}test/process/fixtures/many-statements.ts`,
        databasePath,
        ending,
      ]);
      if (result.code !== 0 || !result.stdout.includes('prepared 10000 statements')) {
        failures.push(`run ${i} (${ending}): exit ${String(result.code)}\n${result.stderr.slice(0, 300)}`);
      }
    }
    expect(failures).toEqual([]);
  }, 300_000);
});
