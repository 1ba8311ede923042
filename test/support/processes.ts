import type { ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { onTestFinished } from 'vitest';

/** Clean-ups of what was started outside a test (a beforeAll): run once the file's tests are done (processes-setup.ts). */
const atFileEnd = new Set<() => unknown>();

/**
 * Runs `cleanup` when the test that calls this finishes, however it finishes: passed, failed, or
 * timed out, when a `finally` after an await that never settles would not run. Called outside a
 * test (in a beforeAll), once the file's tests are done.
 */
export function atEnd(cleanup: () => unknown): void {
  try {
    onTestFinished(async () => {
      await cleanup();
    });
  } catch {
    // Not inside a test (vitest throws so): at the end of the file instead.
    atFileEnd.add(cleanup);
  }
}

/** `pid` and every process below it, from Linux's /proc (elsewhere, `pid` alone). */
export function processTree(pid: number): number[] {
  const children: number[] = [];
  try {
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      const listed = readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8');
      children.push(...listed.split(' ').filter(Boolean).map(Number));
    }
  } catch {
    // Gone already, or no /proc.
  }
  return [pid, ...children.flatMap(processTree)];
}

function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // Gone already.
  }
}

/**
 * Kills `child` and every process below it (npm's shell and what it runs, the mock's Prism)
 * {@link atEnd} of the test that started it. With `group`, its whole process group is killed
 * instead, which also reaches what it left behind after it exited (spawn it `detached`: it then
 * no longer gets the terminal's Ctrl+C, which only this makes up for).
 */
export function killAtEnd(child: ChildProcess, { group = false }: { group?: boolean } = {}): void {
  const pid = child.pid;
  if (pid === undefined) return;
  const kill = () => {
    if (group) killQuietly(-pid);
    else if (child.exitCode === null && child.signalCode === null) processTree(pid).forEach(killQuietly);
  };
  atEnd(kill);
}

/** Runs the clean-ups {@link atEnd} kept for the end of the file; processes-setup.ts runs it after each file. */
export async function cleanUpFile(): Promise<void> {
  const cleanups = [...atFileEnd];
  atFileEnd.clear();
  for (const cleanup of cleanups) await cleanup();
}

/** What `child` writes (spawned with stdout and stderr piped), as it comes, and its end. */
export function outputOf(child: ChildProcess) {
  let stdout = '';
  let stderr = '';
  const changed = new Set<() => void>();
  const add = (append: (text: string) => void) => (chunk: Buffer) => {
    append(chunk.toString());
    for (const look of changed) look();
  };
  child.stdout?.on(
    'data',
    add((text) => (stdout += text)),
  );
  child.stderr?.on(
    'data',
    add((text) => (stderr += text)),
  );
  // 'close', not 'exit': the output is all read by then.
  const exited = new Promise<number | NodeJS.Signals | null>((resolve) => child.once('close', (code, signal) => resolve(code ?? signal)));
  return {
    /** Resolves with the exit code (or signal) once the process has ended and its output is read. */
    exited,
    stdout: () => stdout,
    stderr: () => stderr,
    /**
     * The first match of `pattern` in stdout, then stderr, once written; rejects if the process
     * exits first. No deadline of its own: the test's timeout is the one, and a busy machine only
     * makes it wait longer.
     */
    written: (pattern: RegExp) =>
      new Promise<RegExpExecArray>((resolve, reject) => {
        const look = () => {
          const match = pattern.exec(stdout) ?? pattern.exec(stderr);
          if (!match) return;
          changed.delete(look);
          resolve(match);
        };
        changed.add(look);
        look();
        void exited.then((code) => {
          changed.delete(look);
          reject(new Error(`exited (${code}) before writing ${pattern}:\n${stdout}${stderr}`));
        });
      }),
  };
}
