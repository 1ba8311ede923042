import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { startServiceProcess, type ServiceProcess } from '../../scripts/support/server-process.js';
import { IDEMPOTENCY_TIMING } from '../../src/service/store/idempotency.js';
import { processEngines, type ProcessStore } from '../support/process-stores.js';
import { dropTestSchemas } from '../support/services.js';

const dir = mkdtempSync(join(tmpdir(), 'animal-store-idempotency-'));
const running = new Set<ServiceProcess>();
afterAll(async () => {
  // Whichever way a test ended (a timeout or a failed assertion included), no process it started outlives the file.
  for (const server of running) await stop(server, 'SIGKILL');
  rmSync(dir, { recursive: true, force: true });
  await dropTestSchemas();
});

async function start({ databasePath, env }: ProcessStore): Promise<ServiceProcess> {
  const server = await startServiceProcess(databasePath, env);
  running.add(server);
  return server;
}

async function stop(server: ServiceProcess, signal: NodeJS.Signals): Promise<void> {
  if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill(signal);
  await server.exited;
  running.delete(server);
}

/** One POST of the load: its Idempotency-Key and body (the animal's name is the key, so each key's animals can be counted). */
interface Sent {
  key: string;
  body: string;
}

const post = (server: ServiceProcess, apiKey: string, sent: Sent) =>
  fetch(`${server.baseUrl}/pets`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json', 'Idempotency-Key': sent.key },
    body: sent.body,
    signal: AbortSignal.timeout(15_000),
  });

/**
 * How many Idempotency-Keys the store holds claimed, read straight from it: the kill comes when
 * some are, since a claim lives only for the few milliseconds between its commit and its
 * request's, and a SIGKILL at a random instant often finds none.
 */
async function claimCounter({ databasePath, env }: ProcessStore): Promise<{ count: () => Promise<number>; close: () => Promise<void> }> {
  const query = "SELECT count(*) AS n FROM idempotency_keys WHERE state = 'in_flight'";
  if (env.DATABASE_URL) {
    const client = new pg.Client({ connectionString: env.DATABASE_URL });
    await client.connect();
    return { count: async () => Number((await client.query<{ n: string }>(query)).rows[0]!.n), close: () => client.end() };
  }
  const db = new Database(databasePath, { readonly: true });
  const statement = db.prepare<[], { n: number }>(query);
  return { count: async () => statement.get()!.n, close: async () => void db.close() };
}

/** Concurrent POSTs, each with a new key, killed with SIGKILL once 100 have been answered 201 and some keys are claimed. */
async function killMidLoad(first: ServiceProcess, store: ProcessStore, round: number) {
  const apiKey = store.key;
  const WORKERS = 50;
  const cut: Sent[] = [];
  const unexpected: number[] = [];
  let acknowledged = 0;
  let stopping = false;
  const worker = async (w: number) => {
    for (let i = 0; !stopping; i++) {
      const key = `round${round}-w${w}-${i}`;
      const sent = { key, body: JSON.stringify({ name: key, categoryId: w + 1 }) };
      try {
        const response = await post(first, apiKey, sent);
        await response.arrayBuffer();
        if (response.status === 201) acknowledged++;
        else unexpected.push(response.status);
      } catch {
        cut.push(sent); // in flight when the process died: its key may have been left claimed
        return;
      }
    }
  };
  const workers = Array.from({ length: WORKERS }, (_, w) => worker(w));
  const deadline = performance.now() + 60_000;
  while (acknowledged < 100 && performance.now() < deadline) await sleep(5);
  const claims = await claimCounter(store);
  try {
    while ((await claims.count()) < 5 && performance.now() < deadline) await sleep(1);
  } finally {
    await claims.close();
  }
  stopping = true;
  await stop(first, 'SIGKILL');
  // The process is gone: nothing renews a claim after this instant, so every claim it left ends within the lock time of it.
  const killedAt = performance.now();
  await Promise.all(workers);
  expect(unexpected).toEqual([]);
  expect(acknowledged).toBeGreaterThanOrEqual(100);
  return { cut, killedAt };
}

/** What retrying one cut-off POST, as a client that obeys Retry-After would, came to. */
interface Outcome {
  key: string;
  status: number;
  name: unknown;
  replayed: boolean;
  /** When the last attempt was sent, in ms after the kill. */
  sentAfterMs: number;
  /** Each 409: its Retry-After, when its request was sent and when it came, in ms after the kill. */
  refusals: { retryAfter: number; sent: number; at: number }[];
}

async function retryObeyingRetryAfter(standby: ServiceProcess, apiKey: string, sent: Sent, killedAt: number): Promise<Outcome> {
  const refusals: Outcome['refusals'] = [];
  for (;;) {
    const sentAfterMs = performance.now() - killedAt;
    const response = await post(standby, apiKey, sent);
    const body = (await response.json()) as { name?: unknown };
    const done = { key: sent.key, status: response.status, name: body.name, sentAfterMs, refusals };
    if (response.status !== 409) return { ...done, replayed: response.headers.get('idempotent-replayed') === 'true' };
    const retryAfter = Number(response.headers.get('retry-after'));
    refusals.push({ retryAfter, sent: sentAfterMs, at: performance.now() - killedAt });
    // Past any lock this test could mean (the old one was 30 s): give up, and let the assertions say how long it took.
    if (sentAfterMs > 45_000 || !(retryAfter >= 1)) return { ...done, replayed: false };
    // Retry-After in whole seconds, and a few milliseconds more: Node's timers may fire a millisecond before the wall clock says the time has come.
    await sleep(retryAfter * 1000 + 20);
  }
}

/** Every animal in the store, read through `server`, by name. */
async function animalsByName(server: ServiceProcess, apiKey: string): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  let url: string | null = `${server.baseUrl}/pets?limit=100`;
  while (url) {
    const response: Response = await fetch(url, { headers: { Authorization: `Bearer ${apiKey}` } });
    for (const pet of (await response.json()) as { name: string }[]) counts.set(pet.name, (counts.get(pet.name) ?? 0) + 1);
    const next = /<([^>]+)>; rel="next"/.exec(response.headers.get('link') ?? '')?.[1];
    url = next ? new URL(next, server.baseUrl).href : null;
  }
  return counts;
}

const LOCK_S = Math.ceil(IDEMPOTENCY_TIMING.lockMs / 1000);

/**
 * How soon after the kill a key's last retry must have been sent, in ms: no claim of the dead
 * process outlives the lock time; a Retry-After rounded up to whole seconds adds less than a
 * second; it counts from when the 409 came, which took as long as its round trip (measured: on a
 * busy two-core machine a good part of a second); and 250 ms for the client's timer to fire.
 */
function deadlineOf(o: Outcome): number {
  const last = o.refusals.at(-1);
  return IDEMPOTENCY_TIMING.lockMs + 1000 + (last ? last.at - last.sent : 0) + 250;
}

describe.each(processEngines(dir, 'idempotency').filter((e) => e.enabled))('the service process on $name', ({ name, prepare }) => {
  it('frees the Idempotency-Keys a SIGKILL left claimed within the lock time, and Retry-After says how long', async () => {
    const store = await prepare();
    // Started first, as an instance beside it behind a load balancer: its retries come at once,
    // while the claims are still locked (a restart on the same store takes longer than the lock).
    const standby = await start(store);
    try {
      for (let round = 1; ; round++) {
        const { cut, killedAt } = await killMidLoad(await start(store), store, round);
        const outcomes = await Promise.all(cut.map((sent) => retryObeyingRetryAfter(standby, store.key, sent, killedAt)));
        const refused = outcomes.filter((o) => o.refusals.length > 0);
        // A round whose cut-off requests had left no claim behind tests nothing: kill another process.
        if (refused.length === 0 && round < 5) continue;
        expect(refused.length, 'no round left a claimed Idempotency-Key behind').toBeGreaterThan(0);

        const summary = (o: Outcome) =>
          `${o.key}: ${o.refusals.length} × 409 (Retry-After ${[...new Set(o.refusals.map((r) => r.retryAfter))].join('/')} s), ` +
          `then ${o.status} ${(o.sentAfterMs / 1000).toFixed(1)} s after the kill (bound ${(deadlineOf(o) / 1000).toFixed(1)} s)`;
        // Each key's POST ends as the animal of its own body: created now, or the replay of the one created before the kill.
        expect(outcomes.filter((o) => o.status !== 201 || o.name !== o.key).map(summary)).toEqual([]);
        // A Retry-After is never shorter than the real wait by more than a second (so a client obeying it is refused at most once).
        const understated = outcomes.filter((o) => o.refusals.some((r) => o.sentAfterMs - r.at > r.retryAfter * 1000 + 1000));
        expect(understated.map(summary)).toEqual([]);
        expect(
          outcomes.flatMap((o) => o.refusals.map((r) => r.retryAfter)).filter((s) => !Number.isInteger(s) || s < 1 || s > LOCK_S),
        ).toEqual([]);
        expect(outcomes.filter((o) => o.sentAfterMs > deadlineOf(o)).map(summary)).toEqual([]);
        // No key produced two animals.
        const animals = await animalsByName(standby, store.key);
        expect([...animals].filter(([, count]) => count > 1)).toEqual([]);

        const slowest = Math.max(...outcomes.map((o) => o.sentAfterMs));
        const longestTrip = Math.max(...outcomes.flatMap((o) => o.refusals.map((r) => r.at - r.sent)));
        console.log(
          `SIGKILL with Idempotency-Keys on ${name}, round ${round}: ${cut.length} POSTs cut off, ${refused.length} of them left claimed ` +
            `(409 with Retry-After ${[...new Set(refused.flatMap((o) => o.refusals.map((r) => r.retryAfter)))].sort().join(', ')} s), ` +
            `${outcomes.filter((o) => o.replayed).length} replayed; every retry done ${(slowest / 1000).toFixed(2)} s after the kill at most ` +
            `(lock ${LOCK_S} s, longest 409 round trip ${(longestTrip / 1000).toFixed(2)} s); ${animals.size} animals, none twice`,
        );
        return;
      }
    } finally {
      await stop(standby, 'SIGTERM');
    }
  }, 180_000);
});
