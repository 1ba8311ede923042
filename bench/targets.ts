/** The targets `npm run bench` checks, in one table, and how a run's figures meet them. */

import type { LargeContractFigures } from './large-start.js';
import { OPEN_STREAMS, type StreamFigures } from './streams.js';

/** Concurrent connections of every measurement (the p99 target is set at this). */
export const CONNECTIONS = 50;
/** Starts of the release whose median is its start time. */
export const RELEASE_STARTS = 10;

/** The figures of a run that the targets read. */
export interface TargetFigures {
  /** The median over the rounds of the ratio of two steps' requests per second in the same round. */
  ratio(step: string, over: string): number;
  /** The median over the rounds of a step's p99 latency. */
  p99Ms(step: string): number;
  /** The median of the release's start times. */
  startMs: number;
  rssAfterLoadMiB: number;
}

interface Target {
  name: string;
  unit: '×' | 'ms' | 'MiB' | 'KiB' | '/s';
  /** The figure must be at least (>=) or at most (<=) `limit`. */
  op: '>=' | '<=';
  limit: number;
  figure: (f: TargetFigures) => number;
}

const fullGetOverEov = (f: TargetFigures) => f.ratio('full_get', 'eov_get');

/** Express 5 + express-openapi-validator, the stack a user would otherwise build: the baseline of speed and tail. */
const TARGETS: Target[] = [
  { name: 'full GET / Express 5 + express-openapi-validator GET', unit: '×', op: '>=', limit: 1, figure: fullGetOverEov },
  { name: 'full POST / full GET', unit: '×', op: '>=', limit: 0.9, figure: (f) => f.ratio('full_post', 'full_get') },
  {
    name: `full GET p99 / Express 5 + express-openapi-validator GET p99, at ${CONNECTIONS} connections`,
    unit: '×',
    op: '<=',
    limit: 1.5,
    figure: (f) => f.p99Ms('full_get') / f.p99Ms('eov_get'),
  },
  { name: 'npm start GET / full GET (the release build)', unit: '×', op: '>=', limit: 0.9, figure: (f) => f.ratio('dev_get', 'full_get') },
  { name: `release start to first 200 (median of ${RELEASE_STARTS})`, unit: 'ms', op: '<=', limit: 400, figure: (f) => f.startMs },
  { name: 'full stack resident memory after load', unit: 'MiB', op: '<=', limit: 160, figure: (f) => f.rssAfterLoadMiB },
  {
    name: 'filtered cursor pages, 1,000,000 / 10,000 animals',
    unit: '×',
    op: '>=',
    limit: 0.9,
    figure: (f) => f.ratio('list_large', 'list_small'),
  },
  {
    name: 'filtered cursor pages of 1,000,000 animals, p99 / Express 5 + express-openapi-validator GET p99',
    unit: '×',
    op: '<=',
    limit: 2,
    figure: (f) => f.p99Ms('list_large') / f.p99Ms('eov_get'),
  },
  { name: 'contract-kit GET, 400-path / 4-path contract', unit: '×', op: '>=', limit: 0.9, figure: (f) => f.ratio('kit_400', 'kit_4') },
  {
    name: 'contract-kit GET / Express 5 + express-openapi-validator GET, 4-path contract',
    unit: '×',
    op: '>=',
    limit: 1.2,
    figure: (f) => f.ratio('kit_4', 'eov_4'),
  },
];

/** The targets of the large-contract line (large-start.ts): a contract of 650 operations ready soon, its first requests as cheap as later ones. */
const LARGE_TARGETS: (Omit<Target, 'figure'> & { figure: (f: LargeContractFigures) => number })[] = [
  {
    name: 'large contract (650 operations): start to every validator compiled',
    unit: 'ms',
    op: '<=',
    limit: 3000,
    figure: (f) => f.readyMs,
  },
  {
    name: 'large contract: first request to an operation not asked before, p99 after ready',
    unit: 'ms',
    op: '<=',
    limit: 5,
    figure: (f) => f.firstP99Ms,
  },
];

/**
 * The targets of the stream lines (streams.ts): a thousand open event streams in bounded memory,
 * each given its events in time, and a JSON Lines stream's items checked and sent quickly.
 */
const STREAM_TARGETS: (Omit<Target, 'figure'> & { figure: (f: StreamFigures) => number })[] = [
  {
    name: `resident memory per open event stream, ${OPEN_STREAMS.toLocaleString('en-US')} open`,
    unit: 'KiB',
    op: '<=',
    limit: 64,
    figure: (f) => f.kibPerOpenStream,
  },
  {
    name: `events a second to ${OPEN_STREAMS.toLocaleString('en-US')} open streams, one each a second`,
    unit: '/s',
    op: '>=',
    limit: 0.95 * OPEN_STREAMS,
    figure: (f) => f.feedEventsPerSecond,
  },
  { name: 'JSON Lines items a second, one stream', unit: '/s', op: '>=', limit: 100_000, figure: (f) => f.exportItemsPerSecond },
];

/** One target and this run's figure for it. */
export interface TargetCheck {
  name: string;
  value: number;
  unit: Target['unit'];
  op: Target['op'];
  limit: number;
  met: boolean;
}

/** A target checked against its figure. */
const check = (name: string, value: number, { unit, op, limit }: Pick<Target, 'unit' | 'op' | 'limit'>): TargetCheck => ({
  name,
  value,
  unit,
  op,
  limit,
  met: op === '>=' ? value >= limit : value <= limit,
});

/** Every target, with the run's figure and whether it met it. */
export function checkTargets(figures: TargetFigures): TargetCheck[] {
  return TARGETS.map((target) => check(target.name, target.figure(figures), target));
}

/** The large-contract line's targets, with its figures. */
export function checkLargeTargets(figures: LargeContractFigures): TargetCheck[] {
  return LARGE_TARGETS.map((target) => check(target.name, target.figure(figures), target));
}

/** The stream lines' targets, with their figures. */
export function checkStreamTargets(figures: StreamFigures): TargetCheck[] {
  return STREAM_TARGETS.map((target) => check(target.name, target.figure(figures), target));
}
