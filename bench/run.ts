/**
 * `npm run bench`: the production stack next to two baselines and the peers a user would pick,
 * under the same load, in interleaved rounds, on the Node.js it runs on; prints a table of
 * medians and writes it as JSON (issues 7 and 14).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { failUsage, parseCommandLine, wholeNumberOption } from '../src/shared/command-line.js';
import { PACKAGE_ROOT } from '../src/shared/package-root.js';
import { encodeCursor } from '../src/service/http/pagination.js';
import { firstAnimals, seedStore } from './animals.js';
import { runLoad, type Generator, type LoadResult, type LoadSpec } from './load.js';
import { hasWrk } from './wrk.js';
import { serveArguments, startServer, type BenchServer, type ServerSpec } from './processes.js';
import { formatTable, median, summarise, type Measurement, type TargetCheck } from './report.js';

const HELP = `Usage: npm run bench [-- options]

Measures the Animal Store's full production stack (npm run serve: the compiled service, which
it builds first with npm run build; API key, rate limit, request and response validation,
SQLite, one log line per request) next to two baselines and three peers, all serving the same
contract and the same 20 animals as JSON: raw node:http; a stock Express 5 app; Express 5 with
express-openapi-validator as its README shows; openapi-backend on Express (request and response
validation); and, for reference, fastify 5 with fastify-openapi-glue. Every server runs in its own
process; the load comes from wrk when it is installed (apt-get install wrk), else from
autocannon, in a process of its own. The measurements are taken in
interleaved rounds (the order rotates each round) and the table shows medians:

  GET /v1/pets?limit=20 on the six servers, and POST /v1/pets on the full stack;
  filtered pages (status and cursor) from all over a store of 10,000 and of 1,000,000
  animals, 10,000 different ones in turn, so no cache answers them;
  time from process start to the first 200, and resident memory after the load.

It runs on the Node.js that runs it (the table says which), seeds throw-away SQLite files
(deleted at the end), takes about five minutes with the defaults, and writes the results to bench-results/latest.json. Run it on a quiet machine:
the ratios compare servers measured in the same run, the absolute figures depend on the machine.

Options:
  --rounds N         Interleaved rounds (default 5, at least 1).
  --duration S       Seconds of load per measurement and round (default 5).
  --connections N    Concurrent connections (default 50).
  --large N          Animals in the large store (default 1000000).
  --output FILE      Where to write the JSON (default bench-results/latest.json).
  --generator G      wrk or autocannon (default: wrk when installed). autocannon runs on Node
                     and needs about a core of its own, so on a small machine it holds the
                     fastest server back and the ratios shrink towards 1.
  -h, --help         Show this help.
`;

const SMALL = 10_000;
const LIST_PATH = '/v1/pets?limit=20';
const NEW_PET = JSON.stringify({ name: 'Rex', categoryId: 3 });
/** Seconds of unrecorded load on each server before the first round (JIT, caches). */
const WARM_UP_SECONDS = 2;

/** Prints what the bench is doing now, on one line when the output is a terminal. */
function progress(text: string): void {
  if (process.stderr.isTTY) process.stderr.write(`\r\x1b[K${text}`);
  else if (text !== '') process.stderr.write(`${text}\n`);
}

/** Distinct pages each list-size measurement goes through, one per request, in turn. */
const DEEP_PAGES = 10_000;

/**
 * Filtered pages (status and cursor) from all over a store of `animals`: the keyset query that a
 * large table would slow down first. They are many, so the server's page cache (which keeps at
 * most 1,000) does not answer them: this measures the store.
 */
function deepPagePaths(animals: number): string[] {
  const paths: string[] = [];
  // A stride coprime with the count visits every slot once, in an order without locality.
  for (let i = 0, slot = 0; i < DEEP_PAGES; i++, slot = (slot + 7_919) % DEEP_PAGES) {
    const afterId = 1 + Math.floor((slot * (animals - 100)) / DEEP_PAGES);
    paths.push(`/v1/pets?limit=20&status=pending&cursor=${encodeCursor(afterId)}`);
  }
  return paths;
}
const DEEP_PAGE_LABEL = `/v1/pets?limit=20&status=pending&cursor=… (${DEEP_PAGES.toLocaleString('en-US')} pages)`;

/** The service as `npm run serve` runs it (compiled), in production mode, on the SQLite file `databasePath`. */
function fullStack(name: string, databasePath: string, key: string): ServerSpec {
  return {
    name,
    args: serveArguments(),
    env: {
      DATABASE_PATH: databasePath,
      NODE_ENV: 'production',
      ANIMAL_STORE_ENV: 'production',
      LOG_LEVEL: 'info',
      REDIS_URL: '',
      DATABASE_URL: '',
    },
    probePath: LIST_PATH,
    probeHeaders: { Authorization: `Bearer ${key}` },
  };
}

async function main(): Promise<void> {
  const { values } = parseCommandLine(HELP, {
    rounds: { type: 'string', default: '5' },
    duration: { type: 'string', default: '5' },
    connections: { type: 'string', default: '50' },
    large: { type: 'string', default: '1000000' },
    output: { type: 'string', default: 'bench-results/latest.json' },
    generator: { type: 'string' },
  });
  const generator = (values.generator ?? (hasWrk() ? 'wrk' : 'autocannon')) as Generator;
  if (generator !== 'wrk' && generator !== 'autocannon') failUsage(HELP, `--generator must be wrk or autocannon, not "${generator}"`);
  if (generator === 'wrk' && !hasWrk()) failUsage(HELP, 'wrk is not installed: apt-get install wrk, or use --generator autocannon');
  progress(`load generator: ${generator}`);
  const rounds = wholeNumberOption(HELP, 'rounds', values.rounds, 1);
  const duration = wholeNumberOption(HELP, 'duration', values.duration, 1);
  const connections = wholeNumberOption(HELP, 'connections', values.connections, 1);
  const large = wholeNumberOption(HELP, 'large', values.large, SMALL);
  const output = resolve(PACKAGE_ROOT, values.output);

  progress('compiling the service (npm run build)');
  execFileSync('npm', ['run', '-s', 'build'], { cwd: PACKAGE_ROOT, stdio: ['ignore', 'ignore', 'inherit'] });

  const dir = mkdtempSync(join(tmpdir(), 'animal-store-bench-'));
  const servers: BenchServer[] = [];
  try {
    progress(`seeding ${SMALL.toLocaleString('en-US')} and ${large.toLocaleString('en-US')} animals into ${dir}`);
    const mainDb = join(dir, 'main.db');
    const smallDb = join(dir, 'small.db');
    const largeDb = join(dir, 'large.db');
    const seedStarted = performance.now();
    const key = await seedStore(mainDb, SMALL);
    const smallKey = await seedStore(smallDb, SMALL);
    const largeKey = await seedStore(largeDb, large);
    const seedSeconds = (performance.now() - seedStarted) / 1000;

    const start = async (spec: ServerSpec) => {
      progress(`starting ${spec.name}`);
      const server = await startServer(spec, PACKAGE_ROOT);
      servers.push(server);
      return server;
    };
    const raw = await start({
      name: 'raw node:http',
      args: ['--import', 'tsx', 'bench/servers/raw-http.ts'],
      env: {},
      probePath: LIST_PATH,
    });
    const bare = await start({
      name: 'bare Express 5',
      args: ['--import', 'tsx', 'bench/servers/bare-express.ts'],
      env: {},
      probePath: LIST_PATH,
    });
    const peerAuth = { Authorization: 'Bearer as_prod_peer' };
    const peer = (name: string, file: string) =>
      start({ name, args: ['--import', 'tsx', `bench/servers/${file}`], env: {}, probePath: LIST_PATH, probeHeaders: peerAuth });
    const eov = await peer('Express 5 + express-openapi-validator', 'express-openapi-validator.ts');
    const backend = await peer('openapi-backend (Express 5)', 'openapi-backend.ts');
    const glue = await peer('fastify 5 + fastify-openapi-glue', 'fastify-openapi-glue.ts');
    const full = await start(fullStack('full stack', mainDb, key));
    const small = await start(fullStack(`full stack, ${SMALL.toLocaleString('en-US')} animals`, smallDb, smallKey));
    const big = await start(fullStack(`full stack, ${large.toLocaleString('en-US')} animals`, largeDb, largeKey));

    // The baselines must serve what the full stack serves, or the comparison means nothing.
    const expected = firstAnimals(20);
    for (const [server, headers] of [
      [raw, {}],
      [bare, {}],
      [eov, peerAuth],
      [backend, peerAuth],
      [glue, peerAuth],
      [full, { Authorization: `Bearer ${key}` }],
    ] as const) {
      const body: unknown = await (await fetch(`${server.origin}${LIST_PATH}`, { headers })).json();
      if (!isDeepStrictEqual(body, expected)) throw new Error(`${server.name} does not answer ${LIST_PATH} with the bench's 20 animals`);
    }

    const auth = (k: string) => ({ Authorization: `Bearer ${k}` });
    const load = (server: BenchServer, path: string, extra: Partial<LoadSpec> = {}): LoadSpec => ({
      url: `${server.origin}${path}`,
      connections,
      durationSeconds: duration,
      ...extra,
    });
    const plan: { id: string; server: BenchServer; method: 'GET' | 'POST'; path: string; spec: LoadSpec }[] = [
      { id: 'raw_get', server: raw, method: 'GET', path: LIST_PATH, spec: load(raw, LIST_PATH) },
      { id: 'express_get', server: bare, method: 'GET', path: LIST_PATH, spec: load(bare, LIST_PATH) },
      { id: 'eov_get', server: eov, method: 'GET', path: LIST_PATH, spec: load(eov, LIST_PATH, { headers: peerAuth }) },
      { id: 'backend_get', server: backend, method: 'GET', path: LIST_PATH, spec: load(backend, LIST_PATH, { headers: peerAuth }) },
      { id: 'glue_get', server: glue, method: 'GET', path: LIST_PATH, spec: load(glue, LIST_PATH, { headers: peerAuth }) },
      { id: 'full_get', server: full, method: 'GET', path: LIST_PATH, spec: load(full, LIST_PATH, { headers: auth(key) }) },
      {
        id: 'full_post',
        server: full,
        method: 'POST',
        path: '/v1/pets',
        spec: load(full, '/v1/pets', { method: 'POST', headers: { ...auth(key), 'Content-Type': 'application/json' }, body: NEW_PET }),
      },
      {
        id: 'list_small',
        server: small,
        method: 'GET',
        path: DEEP_PAGE_LABEL,
        spec: load(small, LIST_PATH, { headers: auth(smallKey), paths: deepPagePaths(SMALL) }),
      },
      {
        id: 'list_large',
        server: big,
        method: 'GET',
        path: DEEP_PAGE_LABEL,
        spec: load(big, LIST_PATH, { headers: auth(largeKey), paths: deepPagePaths(large) }),
      },
    ];

    const measure = async (step: (typeof plan)[number], durationSeconds: number): Promise<LoadResult> => {
      const result = await runLoad({ ...step.spec, durationSeconds }, generator);
      if (result.non2xx > 0 || result.errors > 0) {
        throw new Error(
          `${step.server.name}, ${step.method} ${step.path}: ${result.non2xx} non-2xx responses and ${result.errors} errors under load`,
        );
      }
      return result;
    };
    for (const step of plan) {
      progress(`warming up: ${step.server.name}, ${step.method} ${step.path} (${WARM_UP_SECONDS} s)`);
      await measure(step, WARM_UP_SECONDS);
    }

    const results = new Map<string, LoadResult[]>(plan.map((step) => [step.id, []]));
    const startTimes: number[] = [];
    for (let round = 0; round < rounds; round++) {
      // Each round starts one step later, so no server is always measured first or last.
      const order = plan.map((_, i) => plan[(i + round) % plan.length]!);
      for (const step of order) {
        progress(`round ${round + 1}/${rounds}: ${step.server.name}, ${step.method} ${step.path} (${duration} s)`);
        results.get(step.id)!.push(await measure(step, duration));
      }
      progress(`round ${round + 1}/${rounds}: process start to first 200`);
      const probe = await startServer(fullStack('full stack (start time)', smallDb, smallKey), PACKAGE_ROOT);
      startTimes.push(probe.startMs);
      await probe.stop();
    }
    const rssAfterLoad = full.rssMiB();
    const rssLargeAfterLoad = big.rssMiB();
    progress('');

    const measurements: Measurement[] = plan.map((step) =>
      summarise(step.id, step.server.name, step.method, step.path, results.get(step.id)!),
    );
    const perRound = (a: string, b: string) =>
      median(results.get(a)!.map((r, i) => r.requestsPerSecond / results.get(b)![i]!.requestsPerSecond));
    const byId = (id: string) => measurements.find((m) => m.id === id)!;
    const ratios = {
      fullGetOverExpressGet: perRound('full_get', 'express_get'),
      fullGetOverRawGet: perRound('full_get', 'raw_get'),
      fullGetOverEovGet: perRound('full_get', 'eov_get'),
      fullGetOverBackendGet: perRound('full_get', 'backend_get'),
      fullGetOverGlueGet: perRound('full_get', 'glue_get'),
      fullPostOverFullGet: perRound('full_post', 'full_get'),
      largeListOverSmallList: perRound('list_large', 'list_small'),
    };
    const startMs = median(startTimes);
    const targets: TargetCheck[] = [
      {
        name: 'full GET / bare Express GET',
        value: ratios.fullGetOverExpressGet,
        unit: '',
        target: '>= 1.00',
        met: ratios.fullGetOverExpressGet >= 1,
      },
      {
        name: 'full GET / Express + express-openapi-validator GET',
        value: ratios.fullGetOverEovGet,
        unit: '',
        target: '>= 1.50',
        met: ratios.fullGetOverEovGet >= 1.5,
      },
      {
        name: 'full GET / openapi-backend GET',
        value: ratios.fullGetOverBackendGet,
        unit: '',
        target: '>= 1.00',
        met: ratios.fullGetOverBackendGet >= 1,
      },
      {
        name: 'full GET / fastify + openapi-glue GET (reference)',
        value: ratios.fullGetOverGlueGet,
        unit: '',
        target: '(reference)',
        met: true,
      },
      { name: 'full GET / raw node:http GET (reference)', value: ratios.fullGetOverRawGet, unit: '', target: '(reference)', met: true },
      {
        name: `full GET p99 at ${connections} connections`,
        value: byId('full_get').median.p99Ms,
        unit: ' ms',
        target: '<= 25 ms',
        met: byId('full_get').median.p99Ms <= 25,
      },
      {
        name: 'full POST / full GET',
        value: ratios.fullPostOverFullGet,
        unit: '',
        target: '>= 0.90',
        met: ratios.fullPostOverFullGet >= 0.9,
      },
      {
        name: `list, ${large.toLocaleString('en-US')} / ${SMALL.toLocaleString('en-US')} animals (req/s)`,
        value: ratios.largeListOverSmallList,
        unit: '',
        target: '>= 0.90',
        met: ratios.largeListOverSmallList >= 0.9,
      },
      { name: 'process start to first 200 (median)', value: startMs, unit: ' ms', target: '<= 400 ms', met: startMs <= 400 },
      { name: 'resident memory after load', value: rssAfterLoad, unit: ' MiB', target: '<= 160 MB', met: rssAfterLoad * 1.048576 <= 160 },
    ];
    const notes = [
      `${rounds} rounds of ${duration} s per line, ${connections} connections, load from ${generator}, Node ${process.version}; seeding took ${seedSeconds.toFixed(1)} s.`,
      `Start times (ms): ${startTimes.map((t) => t.toFixed(0)).join(', ')}; memory of the ${large.toLocaleString('en-US')}-animal server after load: ${rssLargeAfterLoad.toFixed(0)} MiB.`,
      `Results: ${output}`,
    ];
    const report = {
      date: new Date().toISOString(),
      node: process.version,
      settings: { rounds, durationSeconds: duration, connections, generator, smallAnimals: SMALL, largeAnimals: large },
      measurements,
      ratios,
      startToFirst200Ms: { median: startMs, rounds: startTimes },
      rssAfterLoadMiB: { fullStack: rssAfterLoad, largeStore: rssLargeAfterLoad },
      targets,
    };
    mkdirSync(dirname(output), { recursive: true });
    writeFileSync(output, `${JSON.stringify(report, null, 2)}\n`);
    process.stdout.write(`npm run bench on Node.js ${process.version}\n\n${formatTable(measurements, targets, notes)}\n`);
  } finally {
    progress('stopping the servers');
    await Promise.all(servers.map((s) => s.stop()));
    rmSync(dir, { recursive: true, force: true });
    progress('');
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`\nThe bench failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
