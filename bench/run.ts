/**
 * `npm run bench`: the production stack next to two baselines and the peers a user would pick,
 * under the same load, in interleaved rounds, on the Node.js it runs on; prints a table of
 * medians and the targets met or not, and writes them as JSON and Markdown.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { failUsage, parseCommandLine, wholeNumberOption } from '../src/shared/command-line.js';
import { PACKAGE_ROOT } from '../src/shared/package-root.js';
import type { ServerProcess } from '../scripts/support/server-process.js';
import { checkSameAnimals, measurementPlan, release, SMALL, seedStores, startLineup } from './lineup.js';
import { buildKit } from './processes.js';
import { progress } from './progress.js';
import { largeContractRows, LARGE_ASKED, measureLargeContract } from './large-start.js';
import { benchReport, targetRows, type BenchSettings, type RunFigures } from './report.js';
import { runRounds, startTimes } from './rounds.js';
import { checkLargeTargets, checkStreamTargets, CONNECTIONS, RELEASE_STARTS } from './targets.js';
import { measureStreams, OPEN_STREAMS, streamRows } from './streams.js';
import { tableLines } from '../src/shared/text-table.js';
import { hasWrk } from './wrk.js';

const HELP = `Usage: npm run bench [-- options]

Measures the Animal Store's full production stack (npm run serve: the compiled service; API key,
rate limit, request and response validation, SQLite, one log line per request at the default
LOG_LEVEL) next to two baselines and three peers, all serving the same contract and the same 20
animals as JSON: raw node:http; a stock Express 5 app; Express 5 with express-openapi-validator
as its README shows; openapi-backend on Express (request and response validation); and, for
reference, fastify 5 with fastify-openapi-glue. It builds contract-kit's dist/ and the release
first (npm run release, into release/, which also compiles the service). Every server runs in
its own process; the load comes from wrk (apt-get install wrk), ${CONNECTIONS} connections. The
measurements are taken in interleaved rounds (the order rotates each round) and the table shows
medians:

  GET /v1/pets?limit=20 on the six servers and on the service as npm start runs it (from the
  sources through tsx, NODE_ENV=development), and POST /v1/pets on the full stack;
  contract-kit (its compiled dist/, as a project that installs it runs it) and stock Express 5
  + express-openapi-validator on synthetic contracts of 4, 40 and 400 paths
  (bench/synthetic-contract.ts), each answering a list of its last path with the same 20
  animals: what a contract's size costs per request;
  filtered pages (status and cursor) from all over a store of 10,000 and of 1,000,000
  animals, 10,000 different ones in turn, so no cache answers them;
  then the full stack's resident memory after the load, and ${RELEASE_STARTS} starts of the release
  (node release/server.js, as the Dockerfile runs it) to its first 200;
  and contract-kit on a synthetic contract of 650 operations (bench/large-contract.ts): start to
  listening and to every validator compiled, the first request to each of ${LARGE_ASKED} operations
  not asked before (p99), the same again, and its resident memory once ready;
  and contract-kit's streams (bench/streams.ts): ${OPEN_STREAMS} server-sent event streams held open
  (resident memory per open stream, events a second), and one JSON Lines stream (items a second).

It ends with the targets (bench/targets.ts), each met or not. It runs on the Node.js that runs it
(the table says which), seeds throw-away SQLite files (deleted at the end), takes about five
minutes with the defaults, and writes the results to docs/benchmark.json and docs/benchmark.md
(commit them: the guides link the report, and no figure of it is typed anywhere else).
Run it on a quiet machine: the ratios compare servers measured in the same round, the absolute
figures depend on the machine.

Options:
  --rounds N         Interleaved rounds (default 5, at least 1).
  --duration S       Seconds of load per measurement and round (default 5).
  --large N          Animals in the large store (default 1000000).
  --output FILE      Where to write the JSON (default docs/benchmark.json); the Markdown
                     goes beside it, FILE with .md for .json.
  --only LINE        Measure one line alone, large-contract (a minute or two) or streams
                     (about 15 s), without wrk or the release; print its lines and targets,
                     and write nothing.
  -h, --help         Show this help.
`;

/** The settings of this run, from its command line. */
/** The lines --only measures alone. */
const ONLY = ['large-contract', 'streams'] as const;

function readSettings(): BenchSettings & { only: (typeof ONLY)[number] | undefined } {
  const { values } = parseCommandLine(HELP, {
    rounds: { type: 'string', default: '5' },
    duration: { type: 'string', default: '5' },
    large: { type: 'string', default: '1000000' },
    output: { type: 'string', default: 'docs/benchmark.json' },
    only: { type: 'string' },
  });
  if (values.only !== undefined && !(ONLY as readonly string[]).includes(values.only))
    failUsage(HELP, `--only takes ${ONLY.join(' or ')}, not "${values.only}"`);
  if (values.only === undefined && !hasWrk()) failUsage(HELP, 'wrk is not installed: apt-get install wrk');
  const git = spawnSync('git', ['describe', '--always', '--dirty'], { cwd: PACKAGE_ROOT, encoding: 'utf8' });
  return {
    rounds: wholeNumberOption(HELP, 'rounds', values.rounds, 1),
    durationSeconds: wholeNumberOption(HELP, 'duration', values.duration, 1),
    large: wholeNumberOption(HELP, 'large', values.large, SMALL),
    output: resolve(PACKAGE_ROOT, values.output),
    commit: git.stdout?.trim() || 'unknown',
    only: values.only as (typeof ONLY)[number] | undefined,
  };
}

/** Seeds the stores in `dir`, starts the servers (into `servers`) and measures them; then the release's starts. */
async function measureAll(settings: BenchSettings, dir: string, servers: ServerProcess[]): Promise<RunFigures> {
  const stores = await seedStores(dir, settings.large);
  const lineup = await startLineup(stores, servers);
  const plan = measurementPlan(lineup, stores);
  await checkSameAnimals(plan);
  const results = await runRounds(plan, settings.rounds, settings.durationSeconds);
  const rssAfterLoadMiB = lineup.full.rssMiB();
  const starts = await startTimes(release(stores.small), RELEASE_STARTS);
  progress('');
  const large = await measureLargeContract();
  const streams = await measureStreams();
  return { plan, results, startTimes: starts, rssAfterLoadMiB, seedSeconds: stores.seedSeconds, large, streams };
}

/** `--only LINE`: that line and its targets, printed. */
async function oneLine(line: (typeof ONLY)[number]): Promise<void> {
  const [rows, targets] =
    line === 'large-contract'
      ? await measureLargeContract().then((f) => [largeContractRows(f), checkLargeTargets(f)] as const)
      : await measureStreams().then((f) => [streamRows(f), checkStreamTargets(f)] as const);
  const lines = [
    `npm run bench -- --only ${line} on Node.js ${process.version}`,
    '',
    ...tableLines(rows, { align: ['left', 'right'], headerRule: true }),
    '',
    'targets',
    ...tableLines(targetRows(targets), { indent: '  ', align: ['left', 'right', 'left', 'left'] }),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

async function main(): Promise<void> {
  const settings = readSettings();
  progress('building contract-kit (npm run build -w contract-kit)');
  buildKit();
  if (settings.only !== undefined) return oneLine(settings.only);
  progress('building the release (npm run release)');
  execFileSync('npm', ['run', '-s', 'release'], { cwd: PACKAGE_ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
  const dir = mkdtempSync(join(tmpdir(), 'animal-store-bench-'));
  const servers: ServerProcess[] = [];
  try {
    const { json, text, markdown } = benchReport(settings, await measureAll(settings, dir, servers));
    mkdirSync(dirname(settings.output), { recursive: true });
    writeFileSync(settings.output, `${JSON.stringify(json, null, 2)}\n`);
    writeFileSync(settings.output.replace(/(\.json)?$/, '.md'), markdown);
    process.stdout.write(text);
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
