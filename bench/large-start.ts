/**
 * The bench's large-contract line: contract-kit serving a synthetic contract of 650 operations
 * (large-contract.ts), in its own process, from start to listening and to every operation's
 * validator compiled; then one request to each of 200 operations not asked before, and the same
 * requests again; and the process's resident memory once ready.
 */
import { startServer } from '../scripts/support/server-process.js';
import { OPERATIONS_PER_RESOURCE, requestTo } from './large-contract.js';
import { benchServer } from './processes.js';
import { progress } from './progress.js';

/** Resources of the large contract: 650 operations. */
const RESOURCES = 130;
/** Operations asked once each after ready, spread over the contract. */
export const LARGE_ASKED = 200;
/** How long the line waits for every validator to be compiled. */
const READY_TIMEOUT_MS = 600_000;

/** What the large-contract line measured. */
export interface LargeContractFigures {
  operations: number;
  /** Milliseconds from spawning the process (node, tsx, the kit) to its first answer. */
  listeningMs: number;
  /** Milliseconds from spawning it to its `/readyz` answering 200: every operation's validator compiled. */
  readyMs: number;
  /** The p99 of the first request to each of LARGE_ASKED operations after ready, one at a time. */
  firstP99Ms: number;
  /** The p99 of the same requests asked again. */
  laterP99Ms: number;
  rssAfterReadyMiB: number;
}

/** The p99 of some durations (the nearest rank). */
function p99(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(0.99 * sorted.length) - 1)]!;
}

/** Each request's milliseconds, one after the other; any answer but a 2xx spoils the line. */
async function timed(origin: string, operations: number[]): Promise<number[]> {
  const times: number[] = [];
  for (const op of operations) {
    const { method, path, body } = requestTo(op);
    const started = performance.now();
    const response = await fetch(`${origin}${path}`, { method, body, headers: body ? { 'Content-Type': 'application/json' } : {} });
    await response.arrayBuffer();
    times.push(performance.now() - started);
    if (response.status >= 300) throw new Error(`the large contract answered ${method} ${path} with ${response.status}`);
  }
  return times;
}

/** Starts the large contract's server, waits for it to be ready, and measures it (see the module's comment). */
export async function measureLargeContract(warmUp?: string): Promise<LargeContractFigures> {
  const operations = RESOURCES * OPERATIONS_PER_RESOURCE;
  progress(`large contract: starting contract-kit on ${operations} operations`);
  const server = await startServer({
    name: `contract-kit, ${operations} operations`,
    ...benchServer('large-contract.ts', { RESOURCES: String(RESOURCES), ...(warmUp ? { WARM_UP: warmUp } : {}) }),
    probePath: '/healthz',
  });
  try {
    const spawnedAt = performance.now() - server.startMs;
    progress('large contract: waiting for every validator');
    while ((await fetch(`${server.origin}/readyz`)).status !== 200) {
      if (performance.now() - spawnedAt > READY_TIMEOUT_MS)
        throw new Error(`not ready after ${READY_TIMEOUT_MS / 1000} s:\n${server.output()}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const readyMs = performance.now() - spawnedAt;
    const rssAfterReadyMiB = server.rssMiB();
    progress(`large contract: ${LARGE_ASKED} operations, asked once each, then again`);
    const asked = Array.from({ length: LARGE_ASKED }, (_, k) => Math.floor((k * operations) / LARGE_ASKED));
    const first = await timed(server.origin, asked);
    const later = await timed(server.origin, asked);
    progress('');
    return { operations, listeningMs: server.startMs, readyMs, firstP99Ms: p99(first), laterP99Ms: p99(later), rssAfterReadyMiB };
  } finally {
    await server.stop();
  }
}

/** The line's rows, for the bench's tables: what, and the figure. */
export function largeContractRows(f: LargeContractFigures): string[][] {
  const ms = (value: number) => `${value.toLocaleString('en-US', { maximumFractionDigits: 1 })} ms`;
  const ops = f.operations.toLocaleString('en-US');
  return [
    ['measure', `contract-kit, synthetic contract of ${ops} operations`],
    ['start to listening (node, tsx, the kit)', ms(f.listeningMs)],
    ['start to every validator compiled (/readyz 200)', ms(f.readyMs)],
    [`first request to an operation not asked before, p99 of ${LARGE_ASKED}`, ms(f.firstP99Ms)],
    ['the same requests again, p99', ms(f.laterP99Ms)],
    ['resident memory once ready', `${Math.round(f.rssAfterReadyMiB)} MiB`],
  ];
}
