import { execFile, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { CommandError } from './command-line.js';

const require = createRequire(import.meta.url);

/**
 * The packages the kit's commands run, at the versions the kit is tested with (its own
 * devDependencies). None is a dependency of the kit, so that a production install of a project
 * (npm ci --omit=dev) does without them: a project has them as devDependencies (init adds them).
 * Not optional peers either: npm counts a package that is an optional peer of a dependency and a
 * devDependency of the project as both, and installs it with --omit=dev.
 */
export const COMMAND_TOOLS = {
  '@redocly/cli': '2.77.0',
  '@stoplight/prism-cli': '5.14.2',
  'fast-check': '4.10.2',
  'openapi-typescript': '7.13.0',
  typescript: '5.9.3',
} as const;

type Tool = keyof typeof COMMAND_TOOLS;

/** The tools each command needs, by command. */
export const TOOLS_OF: Readonly<Record<string, readonly Tool[]>> = {
  generate: ['openapi-typescript', 'typescript'],
  lint: ['@redocly/cli'],
  docs: ['@redocly/cli'],
  mock: ['@stoplight/prism-cli'],
  'check-breaking': ['@redocly/cli'],
  conform: ['fast-check'],
};

/** A tool a command needs is not installed: the message says how to install it. */
class MissingToolError extends CommandError {
  constructor(tools: readonly Tool[]) {
    super(
      `needs ${tools.join(' and ')}, not installed here: npm install --save-dev ${tools.map((t) => `${t}@${COMMAND_TOOLS[t]}`).join(' ')}`,
    );
  }
}

/** The package.json of the package `name` where the kit's code finds it (node_modules up from the kit), if installed. */
function manifestOf(name: string): string | undefined {
  return (require.resolve.paths(name) ?? []).map((dir) => join(dir, name, 'package.json')).find((path) => existsSync(path));
}

/** Throws a MissingToolError naming those of `tools` that are not installed. */
export function requireTools(tools: readonly Tool[]): void {
  const missing = tools.filter((tool) => manifestOf(tool) === undefined);
  if (missing.length > 0) throw new MissingToolError(missing);
}

/** The path of the command `bin` of the tool `name`. */
export function binOf(name: Tool, bin: string): string {
  const manifestPath = manifestOf(name);
  if (!manifestPath) throw new MissingToolError([name]);
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
function runTool(script: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<number> {
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
