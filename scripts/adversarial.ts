/**
 * `npm run adversarial`: what hostile clients cost the service (issue 13), measured on the
 * compiled service in its own process, on loopback only:
 *   1. CPU time per request for the nastiest bodies up to 16 KiB;
 *   2. latency of a well-behaved client while one Free key sends those bodies;
 *   3. resident memory after requests from 1,000,000 distinct client addresses.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { failUsage, parseCommandLine, wholeNumberOption } from '../src/shared/command-line.js';
import { PACKAGE_ROOT } from '../src/shared/package-root.js';
import { tableLines } from '../src/shared/text-table.js';
import { issueKey } from '../src/service/keys/issue-key.js';
import { SqliteStore } from '../src/service/store/sqlite/sqlite-store.js';
import { serveArguments } from '../bench/processes.js';
import { hasWrk } from '../bench/wrk.js';
import {
  closeConnections,
  floodAddresses,
  measureCpu,
  measureLatency,
  type CpuRow,
  type FloodFigures,
  type LatencyFigures,
} from './hostile-clients.js';
import { startServer, type ServerProcess } from './support/server-process.js';

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

/** The keys of the run: two that no limit stops, and the attacker's Free one. */
interface RunKeys {
  wide: string;
  polite: string;
  attacker: string;
}

/** Resident memory of the service (MiB): idle, after the flood of addresses, and ten seconds later. */
interface MemoryFigures {
  idle: number;
  after: number;
  settled: number;
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
};

const log = (text: string) => process.stderr.write(`${text}\n`);

function readOptions(): { batch: number; seconds: number; addresses: number } {
  const { values } = parseCommandLine(HELP, {
    batch: { type: 'string', default: '200' },
    seconds: { type: 'string', default: '15' },
    addresses: { type: 'string', default: '1000000' },
  });
  const batch = wholeNumberOption(HELP, 'batch', values.batch, 10);
  const seconds = wholeNumberOption(HELP, 'seconds', values.seconds, 1);
  const addresses = wholeNumberOption(HELP, 'addresses', values.addresses, 1000);
  if (!hasWrk()) failUsage(HELP, 'wrk is not installed (apt-get install wrk): it drives the distinct addresses');
  return { batch, seconds, addresses };
}

/** Issues the run's keys into the SQLite file the service will use. */
async function issueKeys(databasePath: string): Promise<RunKeys> {
  const store = SqliteStore.open(databasePath);
  try {
    const now = new Date();
    const unlimited = (name: string) =>
      issueKey(store, { name, plan: 'enterprise', environment: 'production', perMinute: 1e9, perDay: 1e12 }, now).then((i) => i.key);
    const wide = await unlimited('measure');
    const polite = await unlimited('polite');
    const attacker = (await issueKey(store, { name: 'attacker', plan: 'free', environment: 'production' }, now)).key;
    return { wide, polite, attacker };
  } finally {
    await store.close();
  }
}

/** The compiled service, as `npm run serve` runs it, behind a proxy it trusts. */
function startService(databasePath: string): Promise<ServerProcess> {
  return startServer({
    name: 'service',
    args: serveArguments(),
    env: { DATABASE_PATH: databasePath, NODE_ENV: 'production', TRUST_PROXY: 'true', LOG_LEVEL: 'warn', REDIS_URL: '', DATABASE_URL: '' },
    probePath: '/healthz',
  });
}

/** Memory before and after requests from `addresses` distinct client addresses. */
async function measureMemory(
  server: ServerProcess,
  addresses: number,
  dir: string,
): Promise<{ memory: MemoryFigures; flood: FloodFigures }> {
  const idle = server.rssMiB();
  log(`3/3 ${addresses.toLocaleString('en-US')} distinct client addresses through X-Forwarded-For (wrk)`);
  const flood = await floodAddresses(server, addresses, dir);
  const after = server.rssMiB();
  // V8 keeps the heap it grew under load for a while: the figure after ten idle seconds too.
  await new Promise((resolve) => setTimeout(resolve, 10_000));
  return { memory: { idle, after, settled: server.rssMiB() }, flood };
}

const verdict = (met: boolean) => (met ? 'met' : 'NOT met');

/** What `npm run adversarial` prints. */
function report(cpuRows: CpuRow[], latency: LatencyFigures, seconds: number, memory: MemoryFigures, flood: FloodFigures): string {
  const worstCpu = Math.max(...cpuRows.map((r) => r.cpuMsPerRequest));
  const { latencies, attackerStatuses } = latency;
  const p99 = percentile(latencies, 99);
  const attacks = [...attackerStatuses.values()].reduce((a, b) => a + b, 0);
  const grown = memory.after - memory.idle;
  const lines = [
    `npm run adversarial on Node.js ${process.version}`,
    '',
    '1. CPU time of the service per request (mean over the batch)',
    ...tableLines(
      cpuRows.map((r) => [r.name, String(r.status), `${r.cpuMsPerRequest.toFixed(2)} ms`]),
      { indent: '   ', align: ['left', 'right', 'right'] },
    ),
    `   worst: ${worstCpu.toFixed(2)} ms per request (target: under 5 ms) ${verdict(worstCpu < 5)}`,
    '',
    `2. polite client, ${latencies.length} GETs in ${seconds} s while the Free key sent ${attacks} hostile POSTs (${[...attackerStatuses].map(([s, n]) => `${n} × ${s}`).join(', ')})`,
    `   p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, max ${Math.max(...latencies).toFixed(1)} ms (target: p99 under 50 ms) ${verdict(p99 < 50)}`,
    '',
    `3. resident memory: idle ${memory.idle.toFixed(0)} MiB; after ${flood.sent.toLocaleString('en-US')} requests from distinct addresses in ${flood.seconds.toFixed(0)} s: ${memory.after.toFixed(0)} MiB (+${grown.toFixed(0)} MiB; target: under 64 MiB more) ${verdict(grown < 64)}; 10 s later: ${memory.settled.toFixed(0)} MiB`,
  ];
  return `${lines.join('\n')}\n`;
}

async function main(): Promise<void> {
  const { batch, seconds, addresses } = readOptions();
  log('compiling the service (npm run build)');
  execFileSync('npm', ['run', '-s', 'build'], { cwd: PACKAGE_ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  const dir = mkdtempSync(join(tmpdir(), 'animal-store-adversarial-'));
  let server: ServerProcess | undefined;
  try {
    const databasePath = join(dir, 'store.db');
    const keys = await issueKeys(databasePath);
    server = await startService(databasePath);
    log(`1/3 CPU time per request: ${batch} requests per body kind`);
    const cpuRows = await measureCpu(server, keys.wide, batch);
    log(`2/3 latency of a polite client for ${seconds} s while a Free key sends hostile bodies`);
    const latency = await measureLatency(server, keys, seconds);
    const { memory, flood } = await measureMemory(server, addresses, dir);
    process.stdout.write(report(cpuRows, latency, seconds, memory, flood));
  } finally {
    await server?.stop();
    closeConnections();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`\nnpm run adversarial failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
