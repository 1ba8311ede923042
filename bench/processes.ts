import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../src/shared/package-root.js';

/** Runs a command to its end, with `input` on its stdin; resolves with its exit code and output. */
export function runToEnd(
  command: string,
  args: string[],
  input?: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
    if (input !== undefined) child.stdin?.end(input);
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
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
