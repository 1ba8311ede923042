/**
 * `npm run bench`: the production stack next to two baselines and the peers a user would pick,
 * under the same load, in interleaved rounds, on the Node.js it runs on; prints a table of
 * medians and writes it as JSON (issues 7 and 14).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { failUsage, parseCommandLine, wholeNumberOption } from '../src/shared/command-line.js';
import { PACKAGE_ROOT } from '../src/shared/package-root.js';
import type { ServerProcess } from '../scripts/support/server-process.js';
import { checkSameAnimals, fullStack, measurementPlan, SMALL, seedStores, startLineup } from './lineup.js';
import type { Generator } from './load-spec.js';
import { progress } from './progress.js';
import { benchReport, type BenchSettings, type RunFigures } from './report.js';
import { runRounds } from './rounds.js';
import { hasWrk } from './wrk.js';

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

/** The settings of this run, from its command line. */
function readSettings(): BenchSettings {
  const { values } = parseCommandLine(HELP, {
    rounds: { type: 'string', default: '5' },
    duration: { type: 'string', default: '5' },
    connections: { type: 'string', default: '50' },
    large: { type: 'string', default: '1000000' },
    output: { type: 'string', default: 'bench-results/latest.json' },
    generator: { type: 'string' },
  });
  const generator = values.generator ?? (hasWrk() ? 'wrk' : 'autocannon');
  if (generator !== 'wrk' && generator !== 'autocannon') failUsage(HELP, `--generator must be wrk or autocannon, not "${generator}"`);
  if (generator === 'wrk' && !hasWrk()) failUsage(HELP, 'wrk is not installed: apt-get install wrk, or use --generator autocannon');
  progress(`load generator: ${generator}`);
  return {
    rounds: wholeNumberOption(HELP, 'rounds', values.rounds, 1),
    durationSeconds: wholeNumberOption(HELP, 'duration', values.duration, 1),
    connections: wholeNumberOption(HELP, 'connections', values.connections, 1),
    large: wholeNumberOption(HELP, 'large', values.large, SMALL),
    output: resolve(PACKAGE_ROOT, values.output),
    generator: generator satisfies Generator,
  };
}

/** Seeds the stores in `dir`, starts the servers (into `servers`) and measures them, in rounds. */
async function measureAll(settings: BenchSettings, dir: string, servers: ServerProcess[]): Promise<RunFigures> {
  const stores = await seedStores(dir, settings.large);
  const lineup = await startLineup(stores, servers);
  await checkSameAnimals(lineup, stores);
  const plan = measurementPlan(lineup, stores, settings.connections, settings.durationSeconds);
  const rounds = await runRounds(plan, { ...settings, startProbe: fullStack('full stack (start time)', stores.small) });
  const rssAfterLoadMiB = { fullStack: lineup.full.rssMiB(), largeStore: lineup.big.rssMiB() };
  progress('');
  return { ...rounds, plan, rssAfterLoadMiB, seedSeconds: stores.seedSeconds };
}

async function main(): Promise<void> {
  const settings = readSettings();
  progress('compiling the service (npm run build)');
  execFileSync('npm', ['run', '-s', 'build'], { cwd: PACKAGE_ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  const dir = mkdtempSync(join(tmpdir(), 'animal-store-bench-'));
  const servers: ServerProcess[] = [];
  try {
    const { json, text } = benchReport(settings, await measureAll(settings, dir, servers));
    mkdirSync(dirname(settings.output), { recursive: true });
    writeFileSync(settings.output, `${JSON.stringify(json, null, 2)}\n`);
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
