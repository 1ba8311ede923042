import { spawn, type ChildProcess } from 'node:child_process';
import { issueKey } from '../../src/keys/issue-key.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
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
  /** The compiled build (`npm run serve`, dist/src/main.js) instead of the sources through tsx. @default false */
  compiled?: boolean;
  /** Run on this CPU core alone (taskset), as a small container would. */
  core?: number;
}

/** Starts `src/main.ts` on `databasePath` (or `env.DATABASE_URL`) and a free port; resolves once it listens. */
export async function startServerProcess(databasePath: string, env: Record<string, string> = {}, options: ProcessOptions = {}): Promise<ServerProcess> {
  // One process (not the tsx wrapper, which would leave its child behind on SIGKILL).
  const node = [process.execPath, ...(options.compiled ? [`${ROOT}dist/src/main.js`] : ['--import', 'tsx', `${ROOT}src/main.ts`])];
  const [command, ...args] = options.core === undefined ? node : ['taskset', '-c', String(options.core), ...node];
  const child = spawn(command!, args, {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', DATABASE_PATH: databasePath, NODE_ENV: 'production', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  const exited = new Promise<number | NodeJS.Signals | null>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
  const baseUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 30_000);
    const onData = () => {
      // The JSON "listening" line (production writes no banner), then the service must say it is ready.
      const match = /"port":(\d+)[^\n]*"msg":"listening"/.exec(output);
      if (match) {
        clearTimeout(timer);
        child.stdout!.off('data', onData);
        const base = `http://localhost:${match[1]}/v1`;
        void waitUntilReady(base).then(() => resolve(base), reject);
      }
    };
    child.stdout!.on('data', onData);
    void exited.then((code) => reject(new Error(`server exited (${String(code)}) before listening:\n${output}`)));
  });
  return { child, baseUrl, output: () => output, exited };
}

/** Resolves once `/readyz` of the service at `base` answers 200 (within 10 s). */
async function waitUntilReady(base: string): Promise<void> {
  const ready = new URL('/readyz', base).href;
  for (let i = 0; i < 200; i++) {
    const status = await fetch(ready).then((r) => r.status, () => 0);
    if (status === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${ready} did not answer 200 within 10 s`);
}

/** Issues a high-limit key straight into the database file, before the server starts. */
export async function keyInFile(databasePath: string): Promise<string> {
  const store = SqliteStore.open(databasePath);
  try {
    return (await issueKey(store, { name: 'process test', plan: 'enterprise', environment: 'production', perMinute: 100_000, perDay: 1_000_000 }, new Date())).key;
  } finally {
    await store.close();
  }
}
