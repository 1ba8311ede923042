import { fileURLToPath } from 'node:url';
import type { Result } from 'autocannon';
import { runToEnd } from './processes.js';
import type { Generator, LoadResult, LoadSpec } from './load-spec.js';
import { runWrk } from './wrk.js';

const WORKER = fileURLToPath(new URL('./load-worker.ts', import.meta.url));

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
