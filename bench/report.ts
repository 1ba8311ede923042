/** What `npm run bench` makes of its measurements: medians, ratios, targets, its table and its JSON. */
import { tableLines } from '../src/shared/text-table.js';
import { SMALL, type Step } from './lineup.js';
import type { Generator, LoadResult } from './load-spec.js';
import type { RoundResults } from './rounds.js';

/** The median of some numbers (the mean of the middle two for an even count). */
function median(values: number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** One measured line of the table: its rounds and their medians. */
interface Measurement {
  id: string;
  label: string;
  method: 'GET' | 'POST';
  path: string;
  rounds: LoadResult[];
  median: { requestsPerSecond: number; p50Ms: number; p99Ms: number };
}

/** Medians over the rounds of one step. */
function summarise(step: Step, rounds: LoadResult[]): Measurement {
  return {
    id: step.id,
    label: step.server.name,
    method: step.method,
    path: step.path,
    rounds,
    median: {
      requestsPerSecond: median(rounds.map((r) => r.requestsPerSecond)),
      p50Ms: median(rounds.map((r) => r.p50Ms)),
      p99Ms: median(rounds.map((r) => r.p99Ms)),
    },
  };
}

/** One target of issue 7 and whether this run met it. */
interface TargetCheck {
  name: string;
  value: number;
  unit: string;
  target: string;
  met: boolean;
}

/** The settings of one bench run. */
export interface BenchSettings {
  rounds: number;
  durationSeconds: number;
  connections: number;
  /** Animals in the large store. */
  large: number;
  /** Where the JSON goes. */
  output: string;
  generator: Generator;
}

/** What one run measured, beyond the rounds. */
export interface RunFigures extends RoundResults {
  plan: Step[];
  rssAfterLoadMiB: { fullStack: number; largeStore: number };
  seedSeconds: number;
}

/** Ratios of the full stack to the others', each the median of the per-round ratios of requests per second. */
function ratiosOf(results: Map<string, LoadResult[]>) {
  const perRound = (a: string, b: string) =>
    median(results.get(a)!.map((r, i) => r.requestsPerSecond / results.get(b)![i]!.requestsPerSecond));
  return {
    fullGetOverExpressGet: perRound('full_get', 'express_get'),
    fullGetOverRawGet: perRound('full_get', 'raw_get'),
    fullGetOverEovGet: perRound('full_get', 'eov_get'),
    fullGetOverBackendGet: perRound('full_get', 'backend_get'),
    fullGetOverGlueGet: perRound('full_get', 'glue_get'),
    fullPostOverFullGet: perRound('full_post', 'full_get'),
    largeListOverSmallList: perRound('list_large', 'list_small'),
  };
}

const atLeast = (name: string, value: number, minimum: number): TargetCheck => ({
  name,
  value,
  unit: '',
  target: `>= ${minimum.toFixed(2)}`,
  met: value >= minimum,
});
const reference = (name: string, value: number): TargetCheck => ({ name, value, unit: '', target: '(reference)', met: true });

/** The targets of issue 7, and whether this run met them. */
function targetsOf(settings: BenchSettings, ratios: ReturnType<typeof ratiosOf>, fullGetP99Ms: number, startMs: number, rssMiB: number) {
  const large = `${settings.large.toLocaleString('en-US')} / ${SMALL.toLocaleString('en-US')} animals`;
  return [
    atLeast('full GET / bare Express GET', ratios.fullGetOverExpressGet, 1),
    atLeast('full GET / Express + express-openapi-validator GET', ratios.fullGetOverEovGet, 1.5),
    atLeast('full GET / openapi-backend GET', ratios.fullGetOverBackendGet, 1),
    reference('full GET / fastify + openapi-glue GET (reference)', ratios.fullGetOverGlueGet),
    reference('full GET / raw node:http GET (reference)', ratios.fullGetOverRawGet),
    {
      name: `full GET p99 at ${settings.connections} connections`,
      value: fullGetP99Ms,
      unit: ' ms',
      target: '<= 25 ms',
      met: fullGetP99Ms <= 25,
    },
    atLeast('full POST / full GET', ratios.fullPostOverFullGet, 0.9),
    atLeast(`list, ${large} (req/s)`, ratios.largeListOverSmallList, 0.9),
    { name: 'process start to first 200 (median)', value: startMs, unit: ' ms', target: '<= 400 ms', met: startMs <= 400 },
    { name: 'resident memory after load', value: rssMiB, unit: ' MiB', target: '<= 160 MB', met: rssMiB * 1.048576 <= 160 },
  ];
}

const number = (value: number, digits = 0) =>
  Number.isFinite(value) ? value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }) : '-';

/** The plain-text table `npm run bench` prints. */
function formatTable(measurements: Measurement[], targets: TargetCheck[], notes: string[]): string {
  const rows = measurements.map((m) => [
    m.label,
    `${m.method} ${m.path}`,
    number(m.median.requestsPerSecond),
    number(m.median.p50Ms, 1),
    number(m.median.p99Ms, 1),
  ]);
  const targetRows = targets.map((t) => [
    t.name,
    `${number(t.value, t.unit === '' ? 2 : 0)}${t.unit}`,
    t.target,
    t.target === '(reference)' ? '' : t.met ? 'met' : 'NOT met',
  ]);
  return [
    ...tableLines([['server', 'request', 'req/s', 'p50 ms', 'p99 ms'], ...rows], {
      align: ['left', 'left', 'right', 'right', 'right'],
      headerRule: true,
    }),
    '',
    'targets (ratios: median of the per-round ratios)',
    ...tableLines(targetRows, { indent: '  ', align: ['left', 'right', 'left', 'left'] }),
    '',
    ...notes,
  ].join('\n');
}

/** The run's JSON report (bench-results/latest.json) and the text `npm run bench` prints. */
export function benchReport(settings: BenchSettings, figures: RunFigures): { json: object; text: string } {
  const { rounds, durationSeconds, connections, generator, large } = settings;
  const measurements = figures.plan.map((step) => summarise(step, figures.results.get(step.id)!));
  const ratios = ratiosOf(figures.results);
  const startMs = median(figures.startTimes);
  const fullGetP99Ms = measurements.find((m) => m.id === 'full_get')!.median.p99Ms;
  const targets = targetsOf(settings, ratios, fullGetP99Ms, startMs, figures.rssAfterLoadMiB.fullStack);
  const notes = [
    `${rounds} rounds of ${durationSeconds} s per line, ${connections} connections, load from ${generator}, Node ${process.version}; seeding took ${figures.seedSeconds.toFixed(1)} s.`,
    `Start times (ms): ${figures.startTimes.map((t) => t.toFixed(0)).join(', ')}; memory of the ${large.toLocaleString('en-US')}-animal server after load: ${figures.rssAfterLoadMiB.largeStore.toFixed(0)} MiB.`,
    `Results: ${settings.output}`,
  ];
  const json = {
    date: new Date().toISOString(),
    node: process.version,
    settings: { rounds, durationSeconds, connections, generator, smallAnimals: SMALL, largeAnimals: large },
    measurements,
    ratios,
    startToFirst200Ms: { median: startMs, rounds: figures.startTimes },
    rssAfterLoadMiB: figures.rssAfterLoadMiB,
    targets,
  };
  return { json, text: `npm run bench on Node.js ${process.version}\n\n${formatTable(measurements, targets, notes)}\n` };
}
