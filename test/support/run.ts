import { fileURLToPath } from 'node:url';
import { x } from 'tinyexec';
import { killAtEnd } from './processes.js';

/** Root of the repository, where package.json lives. */
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Path of a command installed in node_modules/.bin. */
export const bin = (name: string): string => `${ROOT}node_modules/.bin/${name}`;

/**
 * Runs a command to completion and returns its exit code (null if killed) and output; never
 * throws on exit code. It is killed when the test (or, run from a hook, the file) that runs it
 * ends, so the test's timeout is its deadline; `timeoutMs` kills it sooner.
 */
export async function run(
  command: string,
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const running = x(command, args, {
    nodePath: false,
    nodeOptions: {
      cwd: options.cwd ?? ROOT,
      env: { ...process.env, NO_COLOR: '1', ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: options.timeoutMs,
    },
  });
  if (running.process) killAtEnd(running.process);
  const { exitCode, stdout, stderr } = await running;
  return { code: exitCode ?? null, stdout, stderr };
}
