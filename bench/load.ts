import { fileURLToPath } from 'node:url';
import type { Result } from 'autocannon';
import { runToEnd } from './processes.js';
import { runWrk } from './wrk.js';

const WORKER = fileURLToPath(new URL('./load-worker.ts', import.meta.url));

/** One load run against one URL. */
export interface LoadSpec {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  connections: number;
  durationSeconds: number;
  /** Paths (with query) to take in turn, one per request, instead of the URL's. */
  paths?: string[];
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

/** The load generators the bench can drive. */
export type Generator = 'wrk' | 'autocannon';

/**
 * Runs the load with `generator`: wrk (a C program), or autocannon in a process of its own,
 * load-worker.ts; either way the load generator never shares a process with a server.
 */
export function runLoad(spec: LoadSpec, generator: Generator): Promise<LoadResult> {
  return generator === 'wrk' ? runWrk(spec) : runAutocannon(spec);
}

async function runAutocannon(spec: LoadSpec): Promise<LoadResult> {
  const { code, stdout, stderr } = await runToEnd(process.execPath, ['--import', 'tsx', WORKER], JSON.stringify(spec));
  if (code !== 0) throw new Error(`the load generator exited with ${String(code)}:\n${stderr}`);
  const result = JSON.parse(stdout) as Result;
  return {
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}
