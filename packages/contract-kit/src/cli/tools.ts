import { execFile, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);

/** The path of the command `bin` of the package `name`, one of the kit's dependencies. */
export function binOf(name: string, bin: string): string {
  const manifestPath = require.resolve(`${name}/package.json`);
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { bin?: string | Record<string, string> };
  const relative = typeof manifest.bin === 'string' ? manifest.bin : manifest.bin?.[bin];
  if (!relative) throw new Error(`${name} has no command ${bin}`);
  return join(dirname(manifestPath), relative);
}

/**
 * Runs a tool of the kit's (a Node.js script) with `args`, its output passed through; resolves
 * with its exit code. SIGINT, SIGTERM and SIGHUP sent to this process are passed on to it, so that
 * it stops with the command that started it, and this process waits for it to end.
 */
export function runTool(script: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], { stdio: 'inherit', env: { ...process.env, ...env } });
    const forward = (signal: NodeJS.Signals) => child.kill(signal);
    const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
    for (const signal of signals) process.on(signal, forward);
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      for (const s of signals) process.off(s, forward);
      resolve(code ?? (signal ? 128 + (signal === 'SIGINT' ? 2 : signal === 'SIGTERM' ? 15 : 1) : 1));
    });
  });
}

/** Redocly CLI's environment: no telemetry (it would send traces off the machine), no notices of its releases. */
const REDOCLY_ENV = { REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' };

/** Redocly CLI, its output passed through. */
export const redocly = (args: string[]) => runTool(binOf('@redocly/cli', 'redocly'), args, REDOCLY_ENV);

/** Redocly CLI run in `cwd`, its output kept: its exit code, stdout and stderr. */
export function redoclyOutput(args: string[], cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const options = { cwd, env: { ...process.env, ...REDOCLY_ENV }, maxBuffer: 256 * 1024 * 1024 };
    execFile(process.execPath, [binOf('@redocly/cli', 'redocly'), ...args], options, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
      if (error && code === null) return reject(new Error(`redocly could not run: ${error.message}`, { cause: error }));
      resolve({ code, stdout, stderr });
    });
  });
}
