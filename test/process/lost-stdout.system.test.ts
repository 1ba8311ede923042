import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { killAtEnd, outputOf } from '../support/processes.js';
import { ROOT } from '../support/run.js';
import { freePort } from '../../src/shared/free-port.js';
import { SqliteStore } from '../../src/service/store/sqlite/sqlite-store.js';

// The service logs to stdout. Whoever reads it may go away (a supervisor restarted, a pipe
// closed) or stop reading (a full pipe): SIGTERM must still stop the service within its
// deadline, not leave it retrying a write it cannot make.

const SHUTDOWN_TIMEOUT_MS = 2_000;
/**
 * How long after SIGTERM the test waits for the exit: the deadline, plus 10 s for a loaded
 * machine to run the exit itself (milliseconds when idle). A service that does not stop waits
 * forever, so any bound tells the two apart.
 */
const EXIT_WAIT_MS = SHUTDOWN_TIMEOUT_MS + 10_000;

const dir = mkdtempSync(join(tmpdir(), 'animal-store-lost-stdout-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The service in production, logging every request, on a new SQLite file (or with `env`): its process and output. */
function spawnService(name: string, env: Record<string, string> = {}) {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'src', 'service', 'main.ts')], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      NODE_ENV: 'production',
      LOG_LEVEL: 'info',
      DATABASE_PATH: join(dir, `${name}.db`),
      SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  killAtEnd(child);
  return { child, output: outputOf(child) };
}

/** {@link spawnService}, once it listens. */
async function service(name: string) {
  const { child, output } = spawnService(name);
  const port = Number((await output.written(/"port":(\d+)[^\n]*"msg":"listening"/))[1]);
  return { child, output, origin: `http://127.0.0.1:${port}` };
}

/** How the process ended after SIGTERM: its exit code, or `still running` after EXIT_WAIT_MS. */
async function endAfterSigterm(child: ChildProcess) {
  // 'exit', not 'close': a stdout nobody reads may never close.
  const exited = once(child, 'exit').then(([code, signal]) => (code as number | null) ?? signal);
  const signalled = performance.now();
  child.kill('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise(
    (resolve) => (timer = setTimeout(() => resolve(`still running ${EXIT_WAIT_MS / 1000} s after SIGTERM`), EXIT_WAIT_MS)),
  );
  const end = await Promise.race([exited, late]);
  clearTimeout(timer);
  console.log(
    `ended (${String(end)}) ${Math.round(performance.now() - signalled)} ms after SIGTERM (SHUTDOWN_TIMEOUT_MS ${SHUTDOWN_TIMEOUT_MS})`,
  );
  return end;
}

describe('SIGTERM, whatever became of stdout', () => {
  it('stops the service whose stdout pipe was closed by its reader', async () => {
    const { child, output, origin } = await service('closed');
    expect((await fetch(`${origin}/healthz`)).status).toBe(200);
    // The reader goes: the lines the service writes as it stops fail with EPIPE.
    child.stdout.destroy();
    expect(await endAfterSigterm(child), output.stderr()).toBe(0);
  }, 60_000);

  it('stops the service waiting for PostgreSQL at start, whose stdout pipe was closed by its reader', async () => {
    const { child, output } = spawnService('waiting', {
      DATABASE_URL: `postgres://postgres@127.0.0.1:${await freePort()}/test`,
      STARTUP_TIMEOUT_MS: '60000',
    });
    await output.written(/does not answer yet/);
    child.stdout.destroy();
    expect(await endAfterSigterm(child), output.stderr()).toBe(0);
  }, 60_000);

  it('stops the service whose stdout reader stopped reading, with the pipe full', async () => {
    const { child, output, origin } = await service('full');
    // The reader stops; each request's log line goes into the pipe until it is full (64 KiB on
    // Linux: some 300 lines) and then waits in the service.
    child.stdout.pause();
    for (let i = 0; i < 1_000; i++) await (await fetch(`${origin}/healthz`)).arrayBuffer();
    expect(await endAfterSigterm(child), output.stderr()).toBe(0);
  }, 60_000);
});

// `npm start | head -1` on a fresh store: head takes npm's first line and goes, before the
// service writes its banner. The development key it creates must reach someone, or not be kept.
describe('the development key, whatever became of stdout', () => {
  /** `command` run by a shell, in a process group of its own, with `npm start` on a new SQLite file in development. */
  async function pipeline(name: string, command: string) {
    const port = await freePort();
    const databasePath = join(dir, `${name}.db`);
    const child = spawn('sh', ['-c', command], {
      cwd: ROOT,
      // npm's own log level, not the one of the npm that runs the tests: `npm run -s` passes
      // npm_config_loglevel=silent to its children, and an npm start that prints no header line
      // leaves head the banner's first line instead.
      env: {
        ...process.env,
        npm_config_loglevel: 'notice',
        PORT: String(port),
        HOST: '127.0.0.1',
        NODE_ENV: 'development',
        DATABASE_PATH: databasePath,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    killAtEnd(child, { group: true });
    const stop = async () => {
      process.kill(-child.pid!, 'SIGTERM');
      await output.exited;
    };
    const output = outputOf(child);
    return { origin: `http://127.0.0.1:${port}`, databasePath, output, stop };
  }

  /** Whether the service answers /healthz, once it has started (up to 30 s on a loaded machine). */
  const healthy = (origin: string) =>
    vi.waitFor(async () => expect((await fetch(`${origin}/healthz`)).status).toBe(200), { timeout: 30_000, interval: 100 });

  it('shows the banner and the key on stderr when stdout is closed, and runs on with the key working', async () => {
    const { origin, output, stop } = await pipeline('head', 'npm start | head -1');
    const key = (await output.written(/keep it:\n {2}(\S+)\n/))[1]!;
    expect(output.stderr()).toContain('Standard output is closed');
    expect((await fetch(`${origin}/v1/pets`, { headers: { Authorization: `Bearer ${key}` } })).status).toBe(200);
    await healthy(origin);
    await stop();
    expect(output.stderr()).not.toMatch(/EPIPE|Error/);
    // npm start compiles with tsx on its first run in a fresh copy (the designer loop's): a minute and more on a loaded machine.
  }, 120_000);

  it('does not keep a key it could show nowhere (stdout and stderr closed), so that the next start shows one', async () => {
    const { origin, databasePath, stop } = await pipeline('both', 'npm start 2>&1 | head -1');
    await healthy(origin);
    // Still up once the banner was tried (in the turn it started listening, before any request).
    expect((await fetch(`${origin}/healthz`)).status).toBe(200);
    await stop();
    const store = SqliteStore.open(databasePath);
    expect(await store.listKeys()).toEqual([]);
    await store.close();
    const next = spawnService('both', { NODE_ENV: 'development', DATABASE_PATH: databasePath });
    await next.output.written(/Created a development key .*\n {2}as_prod_\S+\n/);
    expect(await endAfterSigterm(next.child)).toBe(0);
  }, 60_000);
});
