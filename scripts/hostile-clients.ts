/**
 * The clients of `npm run adversarial` and what each measures of the service: hostile bodies and
 * the CPU they cost, a polite client's latency beside them, a flood of client addresses (the
 * floods of idle connections are in connection-floods.ts, the Redis stall in redis-stall.ts).
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { request as httpRequest, Agent } from 'node:http';
import { join } from 'node:path';
import type { ServerProcess } from './support/server-process.js';

const KIB = 1024;
const CLOCK_TICKS_PER_SECOND = 100;
const agent = new Agent({ keepAlive: true, maxSockets: 64 });

/** The nastiest bodies, each at most 16 KiB. */
function hostileBodies(): { name: string; body: string }[] {
  const name = (tail: string) => `{"name":"${'!'.repeat(16 * KIB - 40)}${tail}","categoryId":3}`;
  const bodies = [
    { name: '16 KiB name ending in \\ud800', body: name('\\ud800') },
    { name: '16 KiB name ending in \\u0001', body: name('\\u0001') },
    { name: '16 KiB name of spaces ending in \\u0001', body: `{"name":"${' '.repeat(16 * KIB - 40)}\\u0001","categoryId":3}` },
    { name: '16 KiB name of \\u200b escapes', body: `{"name":"${'\\u200b'.repeat(Math.floor((16 * KIB - 40) / 6))}","categoryId":3}` },
    { name: '5,000 nested arrays', body: `${'['.repeat(5000)}${']'.repeat(5000)}` },
    { name: '1,500 unknown keys', body: `{${Array.from({ length: 1500 }, (_, i) => `"k${i}":1`).join(',')},"name":"Rex","categoryId":3}` },
    { name: 'categoryId of 16,000 digits', body: `{"name":"Rex","categoryId":${'9'.repeat(16 * KIB - 40)}}` },
    { name: 'categoryId 0.{16,000 zeros}1e16000', body: `{"name":"Rex","categoryId":0.${'0'.repeat(8000)}1e8001}` },
  ];
  for (const b of bodies) if (Buffer.byteLength(b.body) > 16 * KIB) throw new Error(`${b.name} is over 16 KiB`);
  return bodies;
}

/** User plus system CPU time of a process so far, in milliseconds (Linux /proc). */
export function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND;
}

/** One request on a kept-alive connection; resolves with its status and milliseconds. */
export function send(
  origin: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${origin}${path}`, { method, headers, agent }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Closes the kept-alive connections of {@link send}. */
export function closeConnections(): void {
  agent.destroy();
}

const postPet = (server: ServerProcess, key: string, body: string) =>
  send(server.origin, 'POST', '/v1/pets', { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' }, body);

/** The service's CPU time per request for one hostile body. */
export interface CpuRow {
  name: string;
  status: number;
  cpuMsPerRequest: number;
}

/** Sends each hostile body `batch` times with `key` (after 20 to warm up) and reads the CPU time that took. */
export async function measureCpu(server: ServerProcess, key: string, batch: number): Promise<CpuRow[]> {
  const pid = server.child.pid!;
  const rows: CpuRow[] = [];
  for (const { name, body } of hostileBodies()) {
    for (let i = 0; i < 20; i++) await postPet(server, key, body);
    const before = cpuMs(pid);
    let status = 0;
    for (let i = 0; i < batch; i++) status = (await postPet(server, key, body)).status;
    rows.push({ name, status, cpuMsPerRequest: (cpuMs(pid) - before) / batch });
  }
  return rows;
}

/** A polite client's latencies, and what the attacker was answered, by status. */
export interface LatencyFigures {
  latencies: number[];
  attackerStatuses: Map<number, number>;
}

/** For `seconds`, the `attacker` key sends hostile bodies back to back while the `polite` one lists animals 20 times a second. */
export async function measureLatency(
  server: ServerProcess,
  keys: { polite: string; attacker: string },
  seconds: number,
): Promise<LatencyFigures> {
  const bodies = hostileBodies();
  const until = performance.now() + seconds * 1000;
  const attackerStatuses = new Map<number, number>();
  const attacker = (async () => {
    for (let i = 0; performance.now() < until; i++) {
      const { status } = await postPet(server, keys.attacker, bodies[i % bodies.length]!.body);
      attackerStatuses.set(status, (attackerStatuses.get(status) ?? 0) + 1);
    }
  })();
  const latencies: number[] = [];
  while (performance.now() < until) {
    const next = performance.now() + 50;
    latencies.push((await send(server.origin, 'GET', '/v1/pets?limit=20', { Authorization: `Bearer ${keys.polite}` })).ms);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, next - performance.now())));
  }
  await attacker;
  return { latencies, attackerStatuses };
}

/** The wrk script that sends GET /v1/pets from `count` distinct /64 networks, then stops. */
function addressFloodScript(count: number, threads: number): string {
  return `
local quota = math.floor(${count} / ${threads})
local sent, answered = 0, 0
local ids = 0
-- Each thread gets its own range of addresses: setup runs once per thread, in the main state,
-- and thread:set makes "base" a global of that thread.
setup = function(thread) thread:set("base", ids * quota); ids = ids + 1 end
request = function()
  local n = (base or 0) + sent
  sent = sent + 1
  local a = math.floor(n / 65536) % 65536
  local b = n % 65536
  return wrk.format("GET", "/v1/pets", { ["X-Forwarded-For"] = string.format("2001:db8:%x:%x::1", a, b) })
end
response = function()
  answered = answered + 1
  if answered == quota then
    io.stderr:write("thread done\\n")
    io.stderr:flush()
    wrk.thread:stop()
  end
end
`;
}

/** What the flood of addresses sent, and in how long. */
export interface FloodFigures {
  sent: number;
  seconds: number;
}

/** Sends requests from `addresses` distinct client addresses (X-Forwarded-For) with wrk; its script goes in `dir`. */
async function floodAddresses(server: ServerProcess, addresses: number, dir: string): Promise<FloodFigures> {
  const scriptPath = join(dir, 'addresses.lua');
  writeFileSync(scriptPath, addressFloodScript(addresses, 2));
  const started = performance.now();
  // A stopped wrk thread sends no more, but wrk itself runs out its duration: it is
  // interrupted (and prints its summary) once both threads say they are done.
  const summary = await new Promise<string>((resolve, reject) => {
    const wrk = spawn('wrk', ['-t2', '-c32', '-d3600s', '--timeout', '10s', '-s', scriptPath, server.origin], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    wrk.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    wrk.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (stderr.split('thread done').length - 1 >= 2) wrk.kill('SIGINT');
    });
    wrk.on('error', reject);
    wrk.on('close', () => (/requests in/.test(stdout) ? resolve(stdout) : reject(new Error(`wrk failed:\n${stderr || stdout}`))));
  });
  return { sent: Number(/(\d+) requests in/.exec(summary)?.[1] ?? Number.NaN), seconds: (performance.now() - started) / 1000 };
}

/** Resident memory of the service (MiB): idle, after the flood of addresses, and ten seconds later. */
export interface MemoryFigures {
  idle: number;
  after: number;
  settled: number;
}

/** Memory before and after requests from `addresses` distinct client addresses. */
export async function measureMemory(
  server: ServerProcess,
  addresses: number,
  dir: string,
): Promise<{ memory: MemoryFigures; flood: FloodFigures }> {
  const idle = server.rssMiB();
  const flood = await floodAddresses(server, addresses, dir);
  const after = server.rssMiB();
  // V8 keeps the heap it grew under load for a while: the figure after ten idle seconds too.
  await new Promise((resolve) => setTimeout(resolve, 10_000));
  return { memory: { idle, after, settled: server.rssMiB() }, flood };
}
