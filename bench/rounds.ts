/** The bench's measurements: a warm-up, then interleaved rounds. */
import { startServer, type ServerSpec } from '../scripts/support/server-process.js';
import type { Step } from './lineup.js';
import type { Generator, LoadResult } from './load-spec.js';
import { runLoad } from './load.js';
import { progress } from './progress.js';

/** Seconds of unrecorded load on each server before the first round (JIT, caches). */
const WARM_UP_SECONDS = 2;

/** How the rounds run. */
export interface RoundSettings {
  rounds: number;
  durationSeconds: number;
  generator: Generator;
  /** The server started afresh once a round to time its start. */
  startProbe: ServerSpec;
}

/** What the rounds measured: each step's results, a round each, and each round's start time. */
export interface RoundResults {
  results: Map<string, LoadResult[]>;
  startTimes: number[];
}

/** One step under load; any non-2xx answer or error spoils the whole bench. */
async function measure(step: Step, durationSeconds: number, generator: Generator): Promise<LoadResult> {
  const result = await runLoad({ ...step.spec, durationSeconds }, generator);
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(
      `${step.server.name}, ${step.method} ${step.path}: ${result.non2xx} non-2xx responses and ${result.errors} errors under load`,
    );
  }
  return result;
}

/** Milliseconds from starting `spec` to its first 200. */
async function startTime(spec: ServerSpec): Promise<number> {
  const probe = await startServer(spec);
  await probe.stop();
  return probe.startMs;
}

/** Warms every step up, then runs the rounds, each starting one step later than the one before. */
export async function runRounds(plan: Step[], settings: RoundSettings): Promise<RoundResults> {
  const { rounds, durationSeconds, generator } = settings;
  for (const step of plan) {
    progress(`warming up: ${step.server.name}, ${step.method} ${step.path} (${WARM_UP_SECONDS} s)`);
    await measure(step, WARM_UP_SECONDS, generator);
  }
  const results = new Map<string, LoadResult[]>(plan.map((step) => [step.id, []]));
  const startTimes: number[] = [];
  for (let round = 0; round < rounds; round++) {
    // Each round starts one step later, so no server is always measured first or last.
    const order = plan.map((_, i) => plan[(i + round) % plan.length]!);
    for (const step of order) {
      progress(`round ${round + 1}/${rounds}: ${step.server.name}, ${step.method} ${step.path} (${durationSeconds} s)`);
      results.get(step.id)!.push(await measure(step, durationSeconds, generator));
    }
    progress(`round ${round + 1}/${rounds}: process start to first 200`);
    startTimes.push(await startTime(settings.startProbe));
  }
  return { results, startTimes };
}
