/**
 * `npm run adversarial`: what hostile clients cost the service (issue 13), measured on the
 * compiled service in its own process, on loopback only:
 *   1. CPU time per request for the nastiest bodies up to 16 KiB;
 *   2. latency of a well-behaved client while one Free key sends those bodies;
 *   3. resident memory after requests from 1,000,000 distinct client addresses.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest, Agent } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { failUsage, parseCommandLine, wholeNumberOption } from '../src/shared/command-line.js';
import { PACKAGE_ROOT } from '../src/shared/package-root.js';
import { issueKey } from '../src/service/keys/issue-key.js';
import { SqliteStore } from '../src/service/store/sqlite/sqlite-store.js';
import { serveArguments, startServer, type BenchServer } from '../bench/processes.js';
import { hasWrk } from '../bench/wrk.js';

const HELP = `Usage: npm run adversarial [-- options]

Measures what hostile clients cost the Animal Store (the compiled service, npm run serve, on a
throw-away SQLite file, TRUST_PROXY=true), on loopback only:

  1. CPU time per request of the service for the nastiest request bodies up to 16 KiB (16 KiB
     names ending in an unpaired surrogate or a control character, deep nesting, thousands of
     keys, long numbers), read from /proc between batches;            target: under 5 ms
  2. p99 latency of a well-behaved client (GET /v1/pets, 20 a second) while one Free key sends
     those bodies as fast as it is answered;                          target: under 50 ms
  3. resident memory of the service after requests from distinct client addresses (one
     X-Forwarded-For /64 each, driven by wrk), next to its idle figure; target: under 64 MiB more

Options:
  --batch N          Requests per body kind for the CPU figure (default 200).
  --seconds S        Length of the latency measurement (default 15).
  --addresses N      Distinct client addresses (default 1000000; needs wrk: apt-get install wrk).
  -h, --help         Show this help.
`;

const KIB = 1024;
const CLOCK_TICKS_PER_SECOND = 100;

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
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND;
}

const agent = new Agent({ keepAlive: true, maxSockets: 64 });

/** One request; resolves with its status and milliseconds. */
function send(
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

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
};

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

async function main(): Promise<void> {
  const { values } = parseCommandLine(HELP, {
    batch: { type: 'string', default: '200' },
    seconds: { type: 'string', default: '15' },
    addresses: { type: 'string', default: '1000000' },
  });
  const batch = wholeNumberOption(HELP, 'batch', values.batch, 10);
  const seconds = wholeNumberOption(HELP, 'seconds', values.seconds, 1);
  const addresses = wholeNumberOption(HELP, 'addresses', values.addresses, 1000);
  if (!hasWrk()) failUsage(HELP, 'wrk is not installed (apt-get install wrk): it drives the distinct addresses');
  const log = (text: string) => process.stderr.write(`${text}\n`);

  log('compiling the service (npm run build)');
  execFileSync('npm', ['run', '-s', 'build'], { cwd: PACKAGE_ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  const dir = mkdtempSync(join(tmpdir(), 'animal-store-adversarial-'));
  let server: BenchServer | undefined;
  try {
    const databasePath = join(dir, 'store.db');
    const store = SqliteStore.open(databasePath);
    const now = new Date();
    const wide = (
      await issueKey(store, { name: 'measure', plan: 'enterprise', environment: 'production', perMinute: 1e9, perDay: 1e12 }, now)
    ).key;
    const polite = (
      await issueKey(store, { name: 'polite', plan: 'enterprise', environment: 'production', perMinute: 1e9, perDay: 1e12 }, now)
    ).key;
    const free = (await issueKey(store, { name: 'attacker', plan: 'free', environment: 'production' }, now)).key;
    await store.close();
    server = await startServer(
      {
        name: 'service',
        args: serveArguments(),
        env: {
          DATABASE_PATH: databasePath,
          NODE_ENV: 'production',
          TRUST_PROXY: 'true',
          LOG_LEVEL: 'warn',
          REDIS_URL: '',
          DATABASE_URL: '',
        },
        probePath: '/healthz',
      },
      PACKAGE_ROOT,
    );
    const pid = server.child.pid!;
    const json = (key: string) => ({ Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' });

    // 1. CPU per request, per body kind (after a warm-up of each).
    log(`1/3 CPU time per request: ${batch} requests per body kind`);
    const cpuRows: { name: string; status: number; cpuMsPerRequest: number }[] = [];
    for (const { name, body } of hostileBodies()) {
      for (let i = 0; i < 20; i++) await send(server.origin, 'POST', '/v1/pets', json(wide), body);
      const before = cpuMs(pid);
      let status = 0;
      for (let i = 0; i < batch; i++) status = (await send(server.origin, 'POST', '/v1/pets', json(wide), body)).status;
      cpuRows.push({ name, status, cpuMsPerRequest: (cpuMs(pid) - before) / batch });
    }
    const worstCpu = Math.max(...cpuRows.map((r) => r.cpuMsPerRequest));

    // 2. A polite client's latency while the Free key sends hostile bodies back to back.
    log(`2/3 latency of a polite client for ${seconds} s while a Free key sends hostile bodies`);
    const bodies = hostileBodies();
    const until = performance.now() + seconds * 1000;
    const attackerStatuses = new Map<number, number>();
    const attacker = (async () => {
      for (let i = 0; performance.now() < until; i++) {
        const { status } = await send(server!.origin, 'POST', '/v1/pets', json(free), bodies[i % bodies.length]!.body);
        attackerStatuses.set(status, (attackerStatuses.get(status) ?? 0) + 1);
      }
    })();
    const latencies: number[] = [];
    while (performance.now() < until) {
      const next = performance.now() + 50;
      latencies.push((await send(server.origin, 'GET', '/v1/pets?limit=20', { Authorization: `Bearer ${polite}` })).ms);
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, next - performance.now())));
    }
    await attacker;

    // 3. Memory after many distinct client addresses.
    const idleRss = server.rssMiB();
    log(`3/3 ${addresses.toLocaleString('en-US')} distinct client addresses through X-Forwarded-For (wrk)`);
    const scriptPath = join(dir, 'addresses.lua');
    writeFileSync(scriptPath, addressFloodScript(addresses, 2));
    const floodStarted = performance.now();
    // A stopped wrk thread sends no more, but wrk itself runs out its duration: it is
    // interrupted (and prints its summary) once both threads say they are done.
    const flood = await new Promise<string>((resolve, reject) => {
      const wrk = spawn('wrk', ['-t2', '-c32', '-d3600s', '--timeout', '10s', '-s', scriptPath, server!.origin], {
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
    const floodSeconds = (performance.now() - floodStarted) / 1000;
    const sent = Number(/(\d+) requests in/.exec(flood)?.[1] ?? Number.NaN);
    const afterRss = server.rssMiB();
    // V8 keeps the heap it grew under load for a while: the figure after ten idle seconds too.
    await new Promise((resolve) => setTimeout(resolve, 10_000));
    const settledRss = server.rssMiB();

    const lines = [
      `npm run adversarial on Node.js ${process.version}`,
      '',
      '1. CPU time of the service per request (mean over the batch)',
      ...cpuRows.map((r) => `   ${r.name.padEnd(40)} ${String(r.status).padStart(3)}  ${r.cpuMsPerRequest.toFixed(2).padStart(6)} ms`),
      `   worst: ${worstCpu.toFixed(2)} ms per request (target: under 5 ms) ${worstCpu < 5 ? 'met' : 'NOT met'}`,
      '',
      `2. polite client, ${latencies.length} GETs in ${seconds} s while the Free key sent ${[...attackerStatuses.values()].reduce((a, b) => a + b, 0)} hostile POSTs (${[...attackerStatuses].map(([s, n]) => `${n} × ${s}`).join(', ')})`,
      `   p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms, max ${Math.max(...latencies).toFixed(1)} ms (target: p99 under 50 ms) ${percentile(latencies, 99) < 50 ? 'met' : 'NOT met'}`,
      '',
      `3. resident memory: idle ${idleRss.toFixed(0)} MiB; after ${sent.toLocaleString('en-US')} requests from distinct addresses in ${floodSeconds.toFixed(0)} s: ${afterRss.toFixed(0)} MiB (+${(afterRss - idleRss).toFixed(0)} MiB; target: under 64 MiB more) ${afterRss - idleRss < 64 ? 'met' : 'NOT met'}; 10 s later: ${settledRss.toFixed(0)} MiB`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    await server?.stop();
    agent.destroy();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`\nnpm run adversarial failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
