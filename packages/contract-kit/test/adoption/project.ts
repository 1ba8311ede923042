import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
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

/** Stops a started script and everything it started (its process group), SIGKILL after 10 s. */
export async function stop({ child }: Running): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  const group = (signal: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, signal);
    } catch {
      // Already gone.
    }
  };
  group('SIGTERM');
  const timer = setTimeout(() => group('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}
