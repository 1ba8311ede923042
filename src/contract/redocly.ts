import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { SPEC_PATH } from './load-spec.js';

/** Redocly CLI, a development dependency of this package. */
const REDOCLY = join(dirname(SPEC_PATH), 'node_modules', '.bin', 'redocly');

/** Whether this installation has Redocly CLI (it is a development dependency). */
export function hasRedocly(): boolean {
  return existsSync(REDOCLY);
}

/** What one Redocly run printed, without its boxed notices about its own releases. */
export interface RedoclyRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs Redocly CLI with `args`. `onLine` receives each non-empty line as it comes, without the
 * boxed release notices Redocly prints on Node 20.
 */
export function runRedocly(
  args: string[],
  { cwd, onLine = () => {} }: { cwd?: string; onLine?: (line: string, stream: 'out' | 'err') => void } = {},
): Promise<RedoclyRun> {
  if (!hasRedocly()) {
    return Promise.reject(new Error(`Redocly CLI is not installed (${REDOCLY}); run \`npm ci\` (it is a development dependency).`));
  }
  return new Promise((resolve, reject) => {
    const child = spawn(REDOCLY, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    const output = { out: [] as Buffer[], err: [] as Buffer[] };
    const partial = { out: '', err: '' };
    const isNotice = (line: string) => !line.trim() || /^\s*[║╔╚]/.test(line);
    // Lines for onLine are cut at newlines across chunks; the output itself is kept byte for
    // byte, so a JSON report larger than one pipe chunk stays intact.
    const relay = (stream: 'out' | 'err') => (chunk: Buffer) => {
      output[stream].push(chunk);
      const lines = (partial[stream] + chunk.toString()).split('\n');
      partial[stream] = lines.pop() ?? '';
      for (const line of lines) if (!isNotice(line)) onLine(line, stream);
    };
    const text = (stream: 'out' | 'err') =>
      Buffer.concat(output[stream])
        .toString()
        .split('\n')
        .filter((line) => !/^\s*[║╔╚]/.test(line))
        .join('\n');
    child.stdout.on('data', relay('out'));
    child.stderr.on('data', relay('err'));
    child.on('error', reject);
    child.on('close', (code) => {
      for (const stream of ['out', 'err'] as const) if (!isNotice(partial[stream])) onLine(partial[stream], stream);
      resolve({ code, stdout: text('out'), stderr: text('err') });
    });
  });
}
