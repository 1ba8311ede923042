import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const AUTOCANNON = fileURLToPath(new URL('../node_modules/autocannon/autocannon.js', import.meta.url));

/** One load run against one URL. */
export interface LoadSpec {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  connections: number;
  durationSeconds: number;
}

/** What one load run measured. */
export interface LoadResult {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  /** Responses that were not 2xx, connection errors and timeouts: any of them spoils the run. */
  non2xx: number;
  errors: number;
}

/**
 * Runs autocannon in its own process (so the load generator never shares a process with a
 * server) and reads its JSON result.
 */
export function runLoad(spec: LoadSpec): Promise<LoadResult> {
  const args = [AUTOCANNON, '--json', '--no-progress', '-c', String(spec.connections), '-d', String(spec.durationSeconds)];
  args.push('-m', spec.method ?? 'GET');
  for (const [name, value] of Object.entries(spec.headers ?? {})) args.push('-H', `${name}=${value}`);
  if (spec.body !== undefined) args.push('-b', spec.body);
  args.push(spec.url);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`autocannon exited with ${String(code)}:\n${stderr}`));
      const result = JSON.parse(stdout) as {
        requests: { average: number; total: number };
        latency: { p50: number; p99: number };
        non2xx: number;
        errors: number;
        timeouts: number;
      };
      resolve({
        requestsPerSecond: result.requests.average,
        p50Ms: result.latency.p50,
        p99Ms: result.latency.p99,
        requests: result.requests.total,
        non2xx: result.non2xx,
        errors: result.errors + result.timeouts,
      });
    });
  });
}
