import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LoadResult, LoadSpec } from './load-spec.js';
import { runToEnd } from './processes.js';

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
    '  io.write(string.format(\'\\n{"requests":%d,"durationUs":%d,"p50Us":%d,"p99Us":%d,"status":%d,"connect":%d,"read":%d,"write":%d,"timeout":%d}\\n\',',
    '    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), e.status, e.connect, e.read, e.write, e.timeout))',
    'end',
  ].join('\n');
}

/**
 * Runs wrk (2 threads, C, far cheaper per request than a Node load generator) against the spec
 * and reads the JSON line its `done` hook prints. Non-2xx/3xx answers are wrk's status errors.
 */
export async function runWrk(spec: LoadSpec): Promise<LoadResult> {
  const dir = mkdtempSync(join(tmpdir(), 'animal-store-wrk-'));
  const file = join(dir, 'load.lua');
  writeFileSync(file, script(spec));
  const origin = new URL(spec.url).origin;
  try {
    const { code, stdout, stderr } = await runToEnd('wrk', [
      '-t2',
      `-c${spec.connections}`,
      `-d${spec.durationSeconds}s`,
      '--timeout',
      '10s',
      '-s',
      file,
      origin,
    ]);
    const line = stdout.split('\n').find((l) => l.startsWith('{"requests"'));
    if (code !== 0 || !line) throw new Error(`wrk exited with ${String(code)}:\n${stderr || stdout}`);
    const r = JSON.parse(line) as Record<string, number>;
    return {
      requestsPerSecond: (r.requests! / r.durationUs!) * 1e6,
      p50Ms: r.p50Us! / 1000,
      p99Ms: r.p99Us! / 1000,
      requests: r.requests!,
      non2xx: r.status!,
      errors: r.connect! + r.read! + r.write! + r.timeout!,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
