import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { freePort } from '../../src/shared/free-port.js';
import { killAtEnd, outputOf, processTree } from '../support/processes.js';
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

// The frontend's commands, stopped by whatever started them (an IDE's task runner, a process
// manager, a terminal closing): SIGTERM or SIGHUP to npm, or Ctrl+C to the whole group.

/** `npm run -s ARGS` in a process group of its own, killed whole when the test ends, so nothing it leaves outlives the test. */
function npmRun(args: string[]) {
  const child = spawn('npm', ['run', '-s', ...args], {
    cwd: ROOT,
    env: { ...process.env, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  killAtEnd(child, { group: true });
  return { child, ...outputOf(child) };
}

/**
 * Waits until none of `pids` runs, and says which still do after 10 s: they stop within
 * milliseconds of their signal (Prism included), so only one that never stops waits that long.
 */
async function stillRunning(pids: number[]): Promise<number[]> {
  const alive = () =>
    pids.filter((pid) => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    });
  for (let waited = 0; alive().length > 0 && waited < 10_000; waited += 50) await new Promise((r) => setTimeout(r, 50));
  return alive();
}

/** Whether something accepts a connection on `port` of 127.0.0.1. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

describe.each([
  // A supervisor or a task runner stops the command it started.
  ['SIGTERM', 'npm'],
  ['SIGINT', 'npm'],
  // The terminal closes, or Ctrl+C: the whole foreground group.
  ['SIGHUP', 'its group'],
  ['SIGINT', 'its group'],
] as const)('npm run mock, npm run sandbox: %s to %s', (signal, to) => {
  const send = (npm: ChildProcess) => (to === 'npm' ? npm.kill(signal) : process.kill(-npm.pid!, signal));

  it('stops the mock and its Prism, and frees the port', async () => {
    const port = await freePort();
    const npm = npmRun(['mock', '--', '--port', String(port)]);
    await npm.written(/Press Ctrl\+C to stop/);
    // npm, its shell if any, the mock and Prism.
    const processes = processTree(npm.child.pid!);
    expect(processes.length).toBeGreaterThanOrEqual(3);
    send(npm.child);
    // Its exit, not the end of its output: what it leaves running holds the same pipes.
    await once(npm.child, 'exit');
    expect(await stillRunning(processes), `processes left running:\n${npm.stdout()}${npm.stderr()}`).toEqual([]);
    expect(await listening(port)).toBe(false);
  }, 60_000);

  it('stops the sandbox, frees its port and deletes its store', async () => {
    const npm = npmRun(['sandbox', '--', '--port', '0']);
    const store = (await npm.written(/store in (\S+), deleted on exit/))[1]!;
    onTestFinished(() => rmSync(store, { recursive: true, force: true }));
    const port = Number((await npm.written(/sandbox at http:\/\/localhost:(\d+)\//))[1]);
    await npm.written(/Press Ctrl\+C to stop/);
    const processes = processTree(npm.child.pid!);
    send(npm.child);
    await once(npm.child, 'exit');
    expect(await stillRunning(processes), `processes left running:\n${npm.stdout()}${npm.stderr()}`).toEqual([]);
    expect(await listening(port)).toBe(false);
    expect(existsSync(store), 'the throw-away store is deleted').toBe(false);
  }, 60_000);
});
