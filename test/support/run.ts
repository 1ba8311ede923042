import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** Root of the repository, where package.json lives. */
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Path of a command installed in node_modules/.bin. */
export const bin = (name: string): string => `${ROOT}node_modules/.bin/${name}`;

/** Runs a command to completion and returns its exit code and output; never throws on exit code. */
export function run(
  command: string,
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd ?? ROOT,
      env: { ...process.env, NO_COLOR: '1', ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: options.timeoutMs ?? 60_000,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
