import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../src/shared/package-root.js';

/** A server the bench started in its own process. */
export interface BenchServer {
  name: string;
  child: ChildProcess;
  origin: string;
  /** Milliseconds from spawning the process to its first 200 on the probe request. */
  startMs: number;
  /** Resident memory of the process now, in MiB. */
  rssMiB(): number;
  stop(): Promise<void>;
}

/** Runs a command to its end, with `input` on its stdin; resolves with its exit code and output. */
export function runToEnd(
  command: string,
  args: string[],
  input?: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
    if (input !== undefined) child.stdin!.end(input);
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** A port nothing listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

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

/** Resident set size of a process, in MiB (Linux /proc, else ps). */
export function rssMiB(pid: number): number {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    if (match) return Number(match[1]) / 1024;
  } catch {
    // not Linux: ask ps
  }
  return Number(execFileSync('ps', ['-o', 'rss=', '-p', String(pid)], { encoding: 'utf8' }).trim()) / 1024;
}

/** What to start and how to tell it is ready. */
export interface ServerSpec {
  name: string;
  /** Arguments to node. */
  args: string[];
  env: Record<string, string>;
  /** Path (and query) that answers 200 once the server is ready, with `probeHeaders`. */
  probePath: string;
  probeHeaders?: Record<string, string>;
}

/**
 * Starts a server on a free port (given as PORT) and resolves once `probePath` answers 200,
 * polling every few milliseconds; the time that took is its start time.
 */
export async function startServer(spec: ServerSpec, cwd: string): Promise<BenchServer> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const started = performance.now();
  const child = spawn(process.execPath, spec.args, {
    cwd,
    env: { ...process.env, ...spec.env, PORT: String(port), HOST: '127.0.0.1' },
    // The service logs a line per request to stdout, as in production; the bench drops them.
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  let exited = false;
  const exit = new Promise<void>((resolve) =>
    child.once('exit', () => {
      exited = true;
      resolve();
    }),
  );
  for (;;) {
    if (exited) throw new Error(`${spec.name} exited before answering:\n${stderr}`);
    if (performance.now() - started > 30_000) {
      child.kill();
      throw new Error(`${spec.name} did not answer 200 on ${spec.probePath} within 30 s:\n${stderr}`);
    }
    const status = await statusOf(`${origin}${spec.probePath}`, spec.probeHeaders ?? {});
    if (status === 200) break;
    if (status !== null) {
      child.kill();
      throw new Error(`${spec.name} answered ${status} on ${spec.probePath}:\n${stderr}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  const startMs = performance.now() - started;
  return {
    name: spec.name,
    child,
    origin,
    startMs,
    rssMiB: () => rssMiB(child.pid!),
    async stop() {
      if (!exited) child.kill('SIGTERM');
      await exit;
    },
  };
}

/**
 * Node's arguments for the compiled service, taken from the `serve` script of package.json so that
 * the bench and the adversarial script run exactly what `npm run serve` runs (its V8 flags included).
 */
export function serveArguments(): string[] {
  const manifest = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { scripts?: Record<string, string> };
  const words = (manifest.scripts?.serve ?? '').trim().split(/ +/);
  // `exec` makes the shell npm starts become node, so that npm's signals reach the service.
  if (words[0] === 'exec') words.shift();
  if (words[0] !== 'node' || words.length < 2 || words.some((word) => /["'$\\]/.test(word))) {
    throw new Error(
      `package.json's serve script must be "[exec] node [flags] <entry>" without quoting, not ${JSON.stringify(manifest.scripts?.serve)}`,
    );
  }
  return words.slice(1);
}
