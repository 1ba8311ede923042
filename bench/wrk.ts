/** The bench's load generator: wrk (a C program, far cheaper per request than a Node.js one). */
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

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
  /**
   * The longest answer. Each run opens its connections at once, and Node accepts one connection
   * per listening socket per turn of its event loop, so this is mostly the wait of the last
   * connection for its first answer.
   */
  maxMs: number;
  requests: number;
  /** Responses that were not 2xx or 3xx, and socket errors and timeouts: any of them spoils the run. */
  non2xx: number;
  errors: number;
}

/** Whether wrk (Debian package `wrk`) is on the PATH. */
export function hasWrk(): boolean {
  return spawnSync('wrk', ['--version'], { stdio: 'ignore' }).error === undefined;
}

const lua = (value: string) => JSON.stringify(value); // a JSON string is a valid Lua string literal here

/**
 * The Lua script wrk runs: the request (method, headers, body; with `paths`, each request takes
 * the next one), and a `done` hook that prints the figures as one JSON line.
 */
function script(spec: LoadSpec): string {
  const paths = spec.paths ?? [`${new URL(spec.url).pathname}${new URL(spec.url).search}`];
  if (paths.some((p) => /[\\"\n]/.test(p)) || Object.entries(spec.headers ?? {}).some(([k, v]) => /[\\"\n]/.test(k + v))) {
    throw new Error('wrk: paths and headers must not contain quotes, backslashes or newlines');
  }
  return [
    `wrk.method = ${lua(spec.method ?? 'GET')}`,
    ...(spec.body === undefined ? [] : [`wrk.body = ${lua(spec.body)}`]),
    ...Object.entries(spec.headers ?? {}).map(([name, value]) => `wrk.headers[${lua(name)}] = ${lua(value)}`),
    `local paths = { ${paths.map(lua).join(', ')} }`,
    'local n = #paths',
    // Each thread starts at another place in the list.
    'local i = math.random(n) - 1',
    'request = function()',
    '  i = i % n + 1',
    '  return wrk.format(nil, paths[i])',
    'end',
    'done = function(summary, latency, requests)',
    '  local e = summary.errors',
    '  io.write(string.format(\'\\n{"requests":%d,"durationUs":%d,"p50Us":%d,"p99Us":%d,"maxUs":%d,"status":%d,"connect":%d,"read":%d,"write":%d,"timeout":%d}\\n\',',
    '    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), latency.max, e.status, e.connect, e.read, e.write, e.timeout))',
    'end',
  ].join('\n');
}

/** Runs wrk (2 threads) with the spec and reads the JSON line its `done` hook prints. */
export async function runWrk(spec: LoadSpec): Promise<LoadResult> {
  const dir = mkdtempSync(join(tmpdir(), 'animal-store-wrk-'));
  const file = join(dir, 'load.lua');
  writeFileSync(file, script(spec));
  try {
    const args = ['-t2', `-c${spec.connections}`, `-d${spec.durationSeconds}s`, '--timeout', '10s', '-s', file, new URL(spec.url).origin];
    const { stdout } = await promisify(execFile)('wrk', args);
    const line = stdout.split('\n').find((l) => l.startsWith('{"requests"'));
    if (!line) throw new Error(`wrk printed no figures:\n${stdout}`);
    const r = JSON.parse(line) as Record<string, number>;
    return {
      requestsPerSecond: (r.requests! / r.durationUs!) * 1e6,
      p50Ms: r.p50Us! / 1000,
      p99Ms: r.p99Us! / 1000,
      maxMs: r.maxUs! / 1000,
      requests: r.requests!,
      non2xx: r.status!,
      errors: r.connect! + r.read! + r.write! + r.timeout!,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
