/** What `npm run bench` makes of its measurements: medians, the targets, and its table as text, Markdown and JSON. */
import { availableParallelism, cpus, platform, release, totalmem } from 'node:os';
import { LISTENING_SOCKETS } from '../src/service/config/settings.js';
import { tableLines } from '../src/shared/text-table.js';
import { SMALL, type Step } from './lineup.js';
import { largeContractRows, type LargeContractFigures } from './large-start.js';
import { streamRows, type StreamFigures } from './streams.js';
import { checkLargeTargets, checkStreamTargets, checkTargets, CONNECTIONS, type TargetCheck } from './targets.js';
import type { LoadResult } from './wrk.js';

/** The median of some numbers (the mean of the middle two for an even count). */
function median(values: number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** The settings of one bench run. */
export interface BenchSettings {
  rounds: number;
  durationSeconds: number;
  /** Animals in the large store. */
  large: number;
  /** Where the JSON goes; the Markdown goes beside it, as .md. */
  output: string;
  /** The commit measured (`git describe --always --dirty`). */
  commit: string;
}

/** What one run measured. */
export interface RunFigures {
  plan: Step[];
  /** Each step's results, a round each. */
  results: Map<string, LoadResult[]>;
  /** Milliseconds from start to first 200 of each start of the release. */
  startTimes: number[];
  rssAfterLoadMiB: number;
  seedSeconds: number;
  large: LargeContractFigures;
  streams: StreamFigures;
}

const number = (value: number, digits: number) =>
  Number.isFinite(value) ? value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }) : '-';
/** A figure in its unit: ratios with two decimals, milliseconds with one, MiB with none. */
const withUnit = (value: number, unit: TargetCheck['unit']) =>
  unit === '×'
    ? `${number(value, 2)}×`
    : unit === '/s'
      ? `${number(value, 0)}/s`
      : `${number(value, unit === 'ms' || unit === 'KiB' ? 1 : 0)} ${unit}`;

/**
 * What the latency columns are. wrk's own correction for coordinated omission, and Node's
 * accepting one connection per listening socket per turn of its event loop (libuv since 1.45), make
 * the start of each run weigh on the p99; measured on the wire (tcpdump), the p99 without them is a
 * fraction of it.
 */
const LATENCY_NOTE =
  'Latencies are as wrk reports them, corrected for coordinated omission: an answer that took over twice the mean time ' +
  "between a connection's requests adds samples for the requests it held up. Each run opens its connections at once, " +
  'and Node accepts one per turn of its event loop on each socket that listens (each turn answers every connection already ' +
  `accepted): on one, as every server here but the full stack listens, the last waits for about ${((CONNECTIONS * (CONNECTIONS - 1)) / 2).toLocaleString('en-US')} answers ` +
  'to the others (max ms); where a request costs much more than 0.1 ms, those first answers and the samples added for them ' +
  `set the p99. The full stack listens on ${LISTENING_SOCKETS} sockets that share its port (contract-kit's listeningSockets). The latency ` +
  "columns are medians of the rounds' figures.";

/** A table as Markdown, its first row the header. */
function markdownTable(rows: string[][], align: readonly ('left' | 'right')[]): string[] {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [line(rows[0]!), line(align.map((a) => (a === 'right' ? '--:' : '---'))), ...rows.slice(1).map(line)];
}

/** What the run measured, as its JSON report carries it: each step's medians and rounds, the start times, memory, the targets. */
function reportOf(settings: BenchSettings, figures: RunFigures) {
  const { rounds, durationSeconds, large, commit } = settings;
  const of = (id: string) => figures.results.get(id)!;
  const measurements = figures.plan.map(({ id, server, method, path }) => {
    const mid = (key: 'requestsPerSecond' | 'p50Ms' | 'p99Ms' | 'maxMs') => median(of(id).map((r) => r[key]));
    const medians = { requestsPerSecond: mid('requestsPerSecond'), p50Ms: mid('p50Ms'), p99Ms: mid('p99Ms'), maxMs: mid('maxMs') };
    return { id, label: server.name, method, path, rounds: of(id), median: medians };
  });
  const startMs = median(figures.startTimes);
  const targets = [
    ...checkTargets({
      ratio: (step, over) => median(of(step).map((r, i) => r.requestsPerSecond / of(over)[i]!.requestsPerSecond)),
      p99Ms: (step) => measurements.find((m) => m.id === step)!.median.p99Ms,
      startMs,
      rssAfterLoadMiB: figures.rssAfterLoadMiB,
    }),
    ...checkLargeTargets(figures.large),
    ...checkStreamTargets(figures.streams),
  ];
  return {
    date: new Date().toISOString(),
    node: process.version,
    machine: `${availableParallelism()} cores (${cpus()[0]?.model.trim() ?? 'unknown CPU'}), ${Math.round(totalmem() / 2 ** 30)} GiB, ${platform()} ${release()}`,
    commit,
    settings: { rounds, durationSeconds, connections: CONNECTIONS, generator: 'wrk', smallAnimals: SMALL, largeAnimals: large },
    seedSeconds: figures.seedSeconds,
    measurements,
    releaseStartToFirst200Ms: { median: startMs, starts: figures.startTimes },
    rssAfterLoadMiB: figures.rssAfterLoadMiB,
    largeContract: figures.large,
    streams: figures.streams,
    targets,
  };
}

/** The targets as table rows: name, figure, goal, met or not. */
export function targetRows(targets: readonly TargetCheck[]): string[][] {
  return [
    ['target', 'measured', 'goal', 'result'],
    ...targets.map((t) => [
      t.name,
      withUnit(t.value, t.unit),
      `${t.op} ${t.unit === '×' || t.unit === '/s' ? withUnit(t.limit, t.unit) : `${t.limit} ${t.unit}`}`,
      t.met ? 'met' : 'not met',
    ]),
  ];
}

/** The report as the text `npm run bench` prints (the targets last) and as Markdown. */
function rendered(report: ReturnType<typeof reportOf>, output: string): { text: string; markdown: string } {
  const { rounds, durationSeconds } = report.settings;
  const measured = [
    ['server', 'request', 'req/s', 'p50 ms', 'p99 ms', 'max ms'],
    ...report.measurements.map(({ label, method, path, median: m }) => [
      label,
      `${method} ${path}`,
      number(m.requestsPerSecond, 0),
      number(m.p50Ms, 1),
      number(m.p99Ms, 1),
      number(m.maxMs, 1),
    ]),
  ];
  const targets = targetRows(report.targets);
  const large = largeContractRows(report.largeContract);
  const streams = streamRows(report.streams);
  const [measuredAlign, targetsAlign] = [
    ['left', 'left', 'right', 'right', 'right', 'right'],
    ['left', 'right', 'left', 'left'],
  ] as const;
  const heading = `npm run bench on Node.js ${report.node}, commit ${report.commit}`;
  const machine = `Machine: ${report.machine}; every server shares it with wrk.`;
  const notes =
    `${rounds} round${rounds === 1 ? '' : 's'} of ${durationSeconds} s per line, ${CONNECTIONS} connections, load from wrk; ` +
    `ratios are medians of per-round ratios. ${LATENCY_NOTE} Release starts to first 200 (ms): ${report.releaseStartToFirst200Ms.starts.map((t) => t.toFixed(0)).join(', ')}.`;
  const text = [
    heading,
    '',
    ...tableLines(measured, { align: measuredAlign, headerRule: true }),
    '',
    notes,
    machine,
    `Seeding took ${report.seedSeconds.toFixed(1)} s. Results: ${output} and .md.`,
    '',
    ...[large, streams].flatMap((rows) => [...tableLines(rows, { align: ['left', 'right'], headerRule: true }), '']),
    'targets',
    ...tableLines(targets, { indent: '  ', align: targetsAlign }),
  ];
  const markdown = [
    `# ${heading}`,
    '',
    `${report.date}. ${machine} ${notes}`,
    '',
    ...markdownTable(measured, measuredAlign),
    '',
    ...(
      [
        ['A large contract', large],
        ['Streams', streams],
      ] as const
    ).flatMap(([title, rows]) => [`## ${title}`, '', ...markdownTable(rows, ['left', 'right']), '']),
    '## Targets',
    '',
    ...markdownTable(targets, targetsAlign),
  ];
  return { text: `${text.join('\n')}\n`, markdown: `${markdown.join('\n')}\n` };
}

/** The run's JSON report, the text `npm run bench` prints, and the same as Markdown. */
export function benchReport(settings: BenchSettings, figures: RunFigures): { json: object; text: string; markdown: string } {
  const json = reportOf(settings, figures);
  return { json, ...rendered(json, settings.output) };
}
