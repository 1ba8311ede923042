/**
 * `npm run adversarial`: what hostile clients cost the service, measured on the compiled service
 * in its own process, and a server of contract-kit, on loopback only (the eight parts are in HELP).
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
import { serveCommand } from '../bench/processes.js';
import { hasWrk } from '../bench/wrk.js';
import {
  closeConnections,
  measureCpu,
  measureLatency,
  measureMemory,
  type CpuRow,
  type FloodFigures,
  type LatencyFigures,
  type MemoryFigures,
} from './hostile-clients.js';
import { connectionFloods, connectionLines, type ConnectionFloodFigures } from './connection-floods.js';
import { percentile, redisStall, stallLines, verdict, type RedisStallFigures } from './redis-stall.js';
import { bodyFloodLines, floodBodies, type BodyFloodFigures } from './body-flood.js';
import { KIT_BODIES_HELP, kitBodyLines, measureKitBodies, type KitBodyFigures } from './kit-bodies.js';
import { startServer, type ServerProcess } from './support/server-process.js';

const HELP = `Usage: npm run adversarial [-- options]

Measures what hostile clients cost the Animal Store (the compiled service, npm run serve, on a
throw-away SQLite file, TRUST_PROXY=loopback), on loopback only:

  1. CPU time per request of the service for the nastiest request bodies up to 16 KiB (16 KiB
     names ending in an unpaired surrogate or a control character, deep nesting, thousands of
     keys, long numbers), read from /proc between batches;            target: under 5 ms
  2. p99 latency of a well-behaved client (GET /v1/pets, 20 a second) while one Free key sends
     those bodies as fast as it is answered;                          target: under 50 ms
  3. resident memory of the service after requests from distinct client addresses (one
     X-Forwarded-For /64 each, driven by wrk), next to its idle figure; target: under 64 MiB more
  4. p99 latency and failures of three polite clients (GET /v1/pets, 20 a second each, from an
     address of its own: one on a new connection each time, one on one kept-alive connection,
     one on its kept-alive connection and a new one in turn) while idle connections from many
     loopback addresses (127.2.x.y), opened again a second after the service closes one, flood
     it;                                                    target: p99 under 50 ms, no failure
  5. the same polite clients while one idle connection from each of more loopback addresses
     than MAX_CONNECTIONS (10,000) fills the service's connections, each opened again a second
     after it is closed;                                    target: p99 under 50 ms, no failure
  6. with Redis: two instances share limits through a proxy to Redis that keeps their
     connections open but passes nothing for a while, then passes traffic again; seconds from
     Redis answering until the instances share limits again;            target: under 10 s
  7. uploaders that send POST /v1/pets with a chunked body of 1 MiB chunks that never ends,
     each starting again once the service closes it, beside a polite client (GET /v1/pets, 20 a
     second, on one kept-alive connection); MiB sent per upload before the service closed it
     (the 16 KiB limit and what the sockets buffer);     target: under 16 MiB, polite p99 under
     50 ms and no failure
${KIT_BODIES_HELP}

Options:
  --batch N          Requests per body kind for the CPU figure (default 200).
  --seconds S        Length of each latency measurement (default 15).
  --addresses N      Distinct client addresses (default 1000000; needs wrk: apt-get install wrk).
  --connections N    Idle connections of the flood (default 15000; this process must be allowed
                     as many open files, see ulimit -n).
  --connection-addresses N
                     Loopback addresses they come from (default 150).
  --spread-connections N
                     Idle connections of part 5, one from each loopback address (default 11000,
                     beyond the service's MAX_CONNECTIONS).
  --redis-url URL    The Redis of part 6 (default: TEST_REDIS_URL; unset: part 6 is skipped).
  --stall-seconds S  How long Redis passes nothing (default 8).
  --uploaders N      Uploaders of part 7 (default 8).
  -h, --help         Show this help.
`;

/** The keys of the run: two that no limit stops (wide, polite), and the attacker's Free one. */
type RunKeys = Record<'wide' | 'polite' | 'attacker', string>;

const log = (text: string) => process.stderr.write(`${text}\n`);

interface Options {
  batch: number;
  seconds: number;
  addresses: number;
  connections: number;
  connectionAddresses: number;
  spreadConnections: number;
  redisUrl: string;
  stallSeconds: number;
  uploaders: number;
}

function readOptions(): Options {
  const { values } = parseCommandLine(HELP, {
    batch: { type: 'string', default: '200' },
    seconds: { type: 'string', default: '15' },
    addresses: { type: 'string', default: '1000000' },
    connections: { type: 'string', default: '15000' },
    'connection-addresses': { type: 'string', default: '150' },
    'spread-connections': { type: 'string', default: '11000' },
    'redis-url': { type: 'string', default: process.env.TEST_REDIS_URL ?? '' },
    'stall-seconds': { type: 'string', default: '8' },
    uploaders: { type: 'string', default: '8' },
  });
  if (!hasWrk()) failUsage(HELP, 'wrk is not installed (apt-get install wrk): it drives the distinct addresses');
  return {
    batch: wholeNumberOption(HELP, 'batch', values.batch, 10),
    seconds: wholeNumberOption(HELP, 'seconds', values.seconds, 1),
    addresses: wholeNumberOption(HELP, 'addresses', values.addresses, 1000),
    connections: wholeNumberOption(HELP, 'connections', values.connections, 100),
    connectionAddresses: wholeNumberOption(HELP, 'connection-addresses', values['connection-addresses'], 1),
    spreadConnections: wholeNumberOption(HELP, 'spread-connections', values['spread-connections'], 100),
    redisUrl: values['redis-url'],
    stallSeconds: wholeNumberOption(HELP, 'stall-seconds', values['stall-seconds'], 1),
    uploaders: wholeNumberOption(HELP, 'uploaders', values.uploaders, 1),
  };
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

/** The compiled service, as `npm run serve` runs it, behind a proxy it trusts; `env` is added. */
function startService(databasePath: string, env: Record<string, string> = {}, name = 'service'): Promise<ServerProcess> {
  const serve = serveCommand();
  return startServer({
    name,
    args: serve.args,
    env: {
      ...serve.env,
      DATABASE_PATH: databasePath,
      NODE_ENV: 'production',
      TRUST_PROXY: 'loopback',
      LOG_LEVEL: 'warn',
      REDIS_URL: '',
      DATABASE_URL: '',
      ...env,
    },
    probePath: '/healthz',
  });
}

/** What `npm run adversarial` measured. */
interface Figures {
  cpuRows: CpuRow[];
  latency: LatencyFigures;
  seconds: number;
  memory: MemoryFigures;
  flood: FloodFigures;
  connections: ConnectionFloodFigures;
  spread: ConnectionFloodFigures;
  stall: RedisStallFigures | null;
  bodies: BodyFloodFigures;
  kitBodies: KitBodyFigures;
}

/** What `npm run adversarial` prints. */
function report({ cpuRows, latency, seconds, memory, flood, connections, spread, stall, bodies, kitBodies }: Figures): string {
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
    '',
    ...connectionLines('4. connection flood', connections),
    '',
    ...connectionLines('5. connections from many addresses', spread),
    '',
    ...stallLines(stall),
    '',
    ...bodyFloodLines(bodies),
    '',
    ...kitBodyLines(kitBodies),
  ];
  return `${lines.join('\n')}\n`;
}

async function main(): Promise<void> {
  const options = readOptions();
  const { batch, seconds, addresses } = options;
  log('compiling the service (npm run build)');
  execFileSync('npm', ['run', '-s', 'build'], { cwd: PACKAGE_ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  const dir = mkdtempSync(join(tmpdir(), 'animal-store-adversarial-'));
  let server: ServerProcess | undefined;
  try {
    const databasePath = join(dir, 'store.db');
    const keys = await issueKeys(databasePath);
    server = await startService(databasePath);
    log(`1/8 CPU time per request: ${batch} requests per body kind`);
    const cpuRows = await measureCpu(server, keys.wide, batch);
    log(`2/8 latency of a polite client for ${seconds} s while a Free key sends hostile bodies`);
    const latency = await measureLatency(server, keys, seconds);
    log(`3/8 ${addresses.toLocaleString('en-US')} distinct client addresses through X-Forwarded-For (wrk)`);
    const { memory, flood } = await measureMemory(server, addresses, dir);
    const { connections, spread } = await connectionFloods(server, keys.polite, options, log);
    log(options.redisUrl ? `6/8 two instances on Redis, which stalls for ${options.stallSeconds} s` : '6/8 skipped: no Redis');
    const stall = await redisStall(options.redisUrl, options.stallSeconds, (name, env) => startService(join(dir, `${name}.db`), env, name));
    log(`7/8 ${options.uploaders} uploaders of endless chunked bodies, and a polite client for ${seconds} s`);
    const bodies = await floodBodies(server, { uploadKey: keys.wide, politeKey: keys.polite }, { uploaders: options.uploaders, seconds });
    const kitBodies = await measureKitBodies(Math.max(10, Math.round(batch / 10)), log);
    process.stdout.write(report({ cpuRows, latency, seconds, memory, flood, connections, spread, stall, bodies, kitBodies }));
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
