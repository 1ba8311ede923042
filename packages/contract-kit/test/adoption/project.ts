import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { x } from 'tinyexec';

/** A command's outcome in a project folder. */
export interface Outcome {
  code: number | undefined;
  output: string;
}

/** Runs a command in `cwd` to its end (at most 5 minutes: an npm install), its output kept. */
export async function inProject(cwd: string, command: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<Outcome> {
  const result = await x(command, args, {
    nodeOptions: {
      cwd,
      env: { ...process.env, NO_COLOR: '1', npm_config_audit: 'false', npm_config_fund: 'false', ...env },
      timeout: 5 * 60_000,
    },
    throwOnError: false,
  });
  return { code: result.exitCode, output: `${result.stdout}${result.stderr}` };
}

/** A free port on loopback. */
export async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A long-running command (npm start, npm run mock) in its own process group, stopped with {@link stop}. */
export interface Running {
  child: ChildProcess;
  output: () => string;
}

/** Starts `npm run SCRIPT` in `cwd` and waits until its output matches `ready` (at most 60 s). */
export async function startScript(cwd: string, script: string, args: string[], env: NodeJS.ProcessEnv, ready: RegExp): Promise<Running> {
  const child = spawn('npm', ['run', script, ...(args.length > 0 ? ['--', ...args] : [])], {
    cwd,
    env: { ...process.env, NO_COLOR: '1', ...env },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const running = { child, output: () => output };
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`npm run ${script} did not say ${String(ready)} within 60 s:\n${output}`)), 60_000);
    const seen = (chunk: Buffer) => {
      output += chunk.toString();
      if (ready.test(output)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout.on('data', seen);
    child.stderr.on('data', seen);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`npm run ${script} ended (exit ${String(code)}) before it was ready:\n${output}`));
    });
  }).catch(async (error: unknown) => {
    await stop(running);
    throw error;
  });
  return running;
}

/**
 * Stops a started script and everything it started (its process group), SIGKILL after 10 s;
 * what it left running in its group after it ended is killed too.
 */
export async function stop({ child }: Running): Promise<void> {
  const group = (signal: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, signal);
    } catch {
      // Already gone.
    }
  };
  if (child.exitCode === null && child.signalCode === null) {
    const exited = once(child, 'exit');
    group('SIGTERM');
    const timer = setTimeout(() => group('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  }
  group('SIGKILL');
}

/** `pid` and every process below it, from Linux's /proc (elsewhere, `pid` alone). */
export function processTree(pid: number): number[] {
  const children: number[] = [];
  try {
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      children.push(...readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').split(' ').filter(Boolean).map(Number));
    }
  } catch {
    // Gone already, or no /proc.
  }
  return [pid, ...children.flatMap(processTree)];
}

/** Those of `pids` still running after `withinMs` (they are waited for until then). */
export async function stillRunning(pids: number[], withinMs: number): Promise<number[]> {
  const alive = () =>
    pids.filter((pid) => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    });
  for (let waited = 0; alive().length > 0 && waited < withinMs; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
  return alive();
}

/** Whether something accepts a connection on `port` of 127.0.0.1. */
export function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

/** Sends `signal` to npm alone, as a supervisor does; those of its processes still running 5 s later. */
export async function signalNpm(running: Running, signal: NodeJS.Signals): Promise<number[]> {
  const processes = processTree(running.child.pid!);
  running.child.kill(signal);
  return stillRunning(processes, 5000);
}
