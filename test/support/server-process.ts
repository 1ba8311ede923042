import { spawn, type ChildProcess } from 'node:child_process';
import { issueKey } from '../../src/service/keys/issue-key.js';
import { SqliteStore } from '../../src/service/store/sqlite/sqlite-store.js';
import { freePort } from '../../bench/processes.js';
import { ROOT } from './run.js';

/** The service as an operator runs it (`npm start`), in its own process. */
export interface ServerProcess {
  child: ChildProcess;
  baseUrl: string;
  output: () => string;
  /** Resolves with the exit code (or signal) once the process has ended. */
  exited: Promise<number | NodeJS.Signals | null>;
}

/** How {@link startServerProcess} runs the service. */
export interface ProcessOptions {
  /** The compiled build (`npm run serve`, dist/src/service/main.js) instead of the sources through tsx. @default false */
  compiled?: boolean;
  /** Run on this CPU core alone (taskset), as a small container would. */
  core?: number;
}

/** Starts `src/service/main.ts` on `databasePath` (or `env.DATABASE_URL`) and a free port; resolves once it listens. */
export async function startServerProcess(
  databasePath: string,
  env: Record<string, string> = {},
  options: ProcessOptions = {},
): Promise<ServerProcess> {
  // One process (not the tsx wrapper, which would leave its child behind on SIGKILL).
  const node = [
    process.execPath,
    ...(options.compiled ? [`${ROOT}dist/src/service/main.js`] : ['--import', 'tsx', `${ROOT}src/service/main.ts`]),
  ];
  const [command, ...args] = options.core === undefined ? node : ['taskset', '-c', String(options.core), ...node];
  // A free port chosen here, so that finding the service depends on no log line (LOG_LEVEL may hide them).
  const port = await freePort();
  const child = spawn(command!, args, {
    cwd: ROOT,
    env: {
      ...process.env,
      HOST: '127.0.0.1',
      DATABASE_PATH: databasePath,
      NODE_ENV: 'production',
      LOG_LEVEL: 'info',
      ...env,
      PORT: String(port),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  const exited = new Promise<number | NodeJS.Signals | null>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
  const baseUrl = `http://localhost:${port}/v1`;
  // Ready when /readyz answers 200; a process that exits first has failed to start.
  await Promise.race([
    waitUntilReady(baseUrl, 30_000).catch((error: Error) => Promise.reject(new Error(`server did not start: ${error.message}\n${output}`))),
    exited.then((code) => Promise.reject(new Error(`server exited (${String(code)}) before it was ready:\n${output}`))),
  ]);
  return { child, baseUrl, output: () => output, exited };
}

/** Resolves once `/readyz` of the service at `base` answers 200 (within `timeoutMs`). */
async function waitUntilReady(base: string, timeoutMs: number): Promise<void> {
  const ready = new URL('/readyz', base).href;
  for (let i = 0; i < timeoutMs / 50; i++) {
    const status = await fetch(ready).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${ready} did not answer 200 within ${timeoutMs / 1000} s`);
}

/** Issues a high-limit key straight into the database file, before the server starts. */
export async function keyInFile(databasePath: string): Promise<string> {
  const store = SqliteStore.open(databasePath);
  try {
    return (
      await issueKey(
        store,
        { name: 'process test', plan: 'enterprise', environment: 'production', perMinute: 100_000, perDay: 1_000_000 },
        new Date(),
      )
    ).key;
  } finally {
    await store.close();
  }
}
