/** The bench's measurements: a warm-up, then interleaved rounds; and the start times. */
import { startServer, type ServerSpec } from '../scripts/support/server-process.js';
import type { Step } from './lineup.js';
import { progress } from './progress.js';
import { runWrk, type LoadResult } from './wrk.js';

/** Seconds of unrecorded load on each server before the first round (JIT, caches). */
const WARM_UP_SECONDS = 2;

/** One step under load; any non-2xx answer or error spoils the whole bench. */
async function measure(step: Step, durationSeconds: number): Promise<LoadResult> {
  const result = await runWrk({ ...step.spec, durationSeconds });
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(
      `${step.server.name}, ${step.method} ${step.path}: ${result.non2xx} non-2xx responses and ${result.errors} errors under load`,
    );
  }
  return result;
}

/** Warms every step up, then runs the rounds, each starting one step later than the one before; each step's results, a round each. */
export async function runRounds(plan: Step[], rounds: number, durationSeconds: number): Promise<Map<string, LoadResult[]>> {
  for (const step of plan) {
    progress(`warming up: ${step.server.name}, ${step.method} ${step.path} (${WARM_UP_SECONDS} s)`);
    await measure(step, WARM_UP_SECONDS);
  }
  const results = new Map<string, LoadResult[]>(plan.map((step) => [step.id, []]));
  for (let round = 0; round < rounds; round++) {
    // Each round starts one step later, so no server is always measured first or last.
    const order = plan.map((_, i) => plan[(i + round) % plan.length]!);
    for (const step of order) {
      progress(`round ${round + 1}/${rounds}: ${step.server.name}, ${step.method} ${step.path} (${durationSeconds} s)`);
      results.get(step.id)!.push(await measure(step, durationSeconds));
    }
  }
  return results;
}

/** Milliseconds from starting `spec` to its first 200, for each of `count` starts, one after the other. */
export async function startTimes(spec: ServerSpec, count: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    progress(`${spec.name}: start ${i + 1}/${count}`);
    const server = await startServer(spec);
    await server.stop();
    times.push(server.startMs);
  }
  return times;
}
