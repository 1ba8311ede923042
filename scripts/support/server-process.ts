/**
 * A server in a process of its own, on a free loopback port, as the bench, `npm run load`,
 * `npm run adversarial` and the process tests start one.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { join } from 'node:path';
import { freePort } from '../../src/shared/free-port.js';
import { PACKAGE_ROOT } from '../../src/shared/package-root.js';
import { residentMemory } from './process-memory.js';

/** A server that {@link startServer} started and saw answer. */
export interface ServerProcess {
  name: string;
  child: ChildProcess;
  /** `http://127.0.0.1:PORT`. */
  origin: string;
  port: number;
  /** Milliseconds from spawning the process to its first 200 on the probe request. */
  startMs: number;
  /** What the process wrote to stderr, and to stdout with `keepStdout`. */
  output(): string;
  /** Resolves with the exit code (or signal) once the process has ended. */
  exited: Promise<number | NodeJS.Signals | null>;
  /** Resident memory of the process now, in MiB (NaN once it has ended). */
  rssMiB(): number;
  /**
   * Sends SIGTERM, unless the process has ended, and waits for its exit; one that has not
   * exited after STOP_TIMEOUT_MS is killed (SIGKILL), and the promise rejects saying so.
   */
  stop(): Promise<void>;
}

/** What {@link startServer} runs and how it tells that it is ready. */
export interface ServerSpec {
  name: string;
  /** Arguments to node. */
  args: string[];
  /** Added to this process's environment; PORT and HOST are always the free port on 127.0.0.1. */
  env: Record<string, string>;
  /** Path (and query) that answers 200, with `probeHeaders`, once the server is ready. */
  probePath: string;
  probeHeaders?: Record<string, string>;
  /** Run on this CPU core alone (taskset), as a small container would. */
  core?: number;
  /** Keep what the process writes to stdout too (the service logs a line per request there). @default false */
  keepStdout?: boolean;
  /** Told of the process as soon as it is spawned (a test kills it when it ends, however it ends). */
  onSpawn?: (child: ChildProcess) => void;
}

const START_TIMEOUT_MS = 30_000;
/** How long {@link ServerProcess.stop} waits after SIGTERM: beyond the service's SHUTDOWN_TIMEOUT_MS (10 s by default). */
const STOP_TIMEOUT_MS = 30_000;

/** The status of one GET, or null when nothing answers yet. */
function statusOf(url: string, headers: Record<string, string>): Promise<number | null> {
  return new Promise((resolve) => {
    const req = request(url, { headers, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? null));
    });
    req.on('error', () => resolve(null));
    req.end();
  });
}

/** Polls the probe every few milliseconds until it answers 200; throws when that cannot come. */
async function waitUntilReady(spec: ServerSpec, origin: string, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = performance.now() + START_TIMEOUT_MS;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`${spec.name} exited (${child.exitCode ?? child.signalCode}) before answering:\n${output()}`);
    }
    if (performance.now() > deadline) {
      throw new Error(`${spec.name} did not answer 200 on ${spec.probePath} within ${START_TIMEOUT_MS / 1000} s:\n${output()}`);
    }
    const status = await statusOf(`${origin}${spec.probePath}`, spec.probeHeaders ?? {});
    if (status === 200) return;
    // Waiting mends no answer yet and a 503 (not ready), but no refusal of the request itself.
    if (status !== null && status < 500) throw new Error(`${spec.name} answered ${status} on ${spec.probePath}:\n${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/**
 * Starts node with `spec.args` on a free port (given as PORT) and resolves once `probePath`
 * answers 200; the time that took is its start time. A server that fails to start is stopped.
 */
export async function startServer(spec: ServerSpec): Promise<ServerProcess> {
  // A port chosen here, so that finding the server depends on no log line (LOG_LEVEL may hide them).
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const started = performance.now();
  const node = [process.execPath, ...spec.args];
  const [command, ...args] = spec.core === undefined ? node : ['taskset', '-c', String(spec.core), ...node];
  const child = spawn(command!, args, {
    cwd: PACKAGE_ROOT,
    env: { ...process.env, ...spec.env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', spec.keepStdout ? 'pipe' : 'ignore', 'pipe'],
  });
  spec.onSpawn?.(child);
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | NodeJS.Signals | null>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
  try {
    await waitUntilReady(spec, origin, child, () => output);
  } catch (error) {
    child.kill();
    throw error;
  }
  return {
    name: spec.name,
    child,
    origin,
    port,
    startMs: performance.now() - started,
    output: () => output,
    exited,
    rssMiB: () => residentMemory(child.pid!)?.rssMiB ?? NaN,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), STOP_TIMEOUT_MS)));
      const outcome = await Promise.race([exited, late]);
      clearTimeout(timer);
      if (outcome !== 'late') return;
      child.kill('SIGKILL');
      await exited;
      throw new Error(`${spec.name} did not exit within ${STOP_TIMEOUT_MS / 1000} s of SIGTERM; killed:\n${output}`);
    },
  };
}

/** The service in its own process, as {@link startServiceProcess} starts it. */
export interface ServiceProcess extends ServerProcess {
  /** Base URL of the API, with the version segment (`http://localhost:PORT/v1`). */
  baseUrl: string;
}

/** How {@link startServiceProcess} runs the service. */
export interface ServiceOptions {
  /** The compiled build (`npm run serve`, dist/src/service/main.js) instead of the sources through tsx. @default false */
  compiled?: boolean;
  /** Run on this CPU core alone (taskset), as a small container would. */
  core?: number;
  /** Told of the process as soon as it is spawned (a test kills it when it ends, however it ends). */
  onSpawn?: (child: ChildProcess) => void;
}

/**
 * Starts the service (its sources through tsx, or the build with `compiled`) in production mode,
 * on the SQLite file `databasePath` (or `env.DATABASE_URL`); resolves once `/readyz` answers 200.
 * It runs without the V8 flags and MALLOC_ARENA_MAX of `npm start` and `npm run serve` (the bench
 * takes those from serveCommand()), so the memory it takes is not what production's would.
 */
export async function startServiceProcess(
  databasePath: string,
  env: Record<string, string> = {},
  options: ServiceOptions = {},
): Promise<ServiceProcess> {
  const server = await startServer({
    name: 'the service',
    // One process (not the tsx wrapper, which would leave its child behind on SIGKILL).
    args: options.compiled
      ? [join(PACKAGE_ROOT, 'dist', 'src', 'service', 'main.js')]
      : ['--import', 'tsx', join(PACKAGE_ROOT, 'src', 'service', 'main.ts')],
    env: { DATABASE_PATH: databasePath, NODE_ENV: 'production', LOG_LEVEL: 'info', ...env },
    probePath: '/readyz',
    core: options.core,
    keepStdout: true,
    onSpawn: options.onSpawn,
  });
  return { ...server, baseUrl: `http://localhost:${server.port}/v1` };
}
