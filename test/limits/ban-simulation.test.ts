import type { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import type { LimitCounters } from '../../src/service/limits/counters.js';
import { RateLimiter } from '../../src/service/limits/limiter.js';
import { memoryCounters } from '../../src/service/limits/memory-counters.js';
import { PLAN_LIMITS } from '../../src/service/limits/plans.js';
import { redisCounters } from '../../src/service/limits/redis-counters.js';
import { FakeClock } from '../support/fake-clock.js';
import { newRedisPrefix, readyRedis, redisEnabled, TEST_REDIS_URL } from '../support/services.js';
import { banPolicyOf } from '../../src/service/config/load-config.js';
import { defaultConfig } from '../../src/service/config/settings.js';

// The ban rule, simulated on the injectable clock against the real limiter (memory counters, and
// the Redis ones when Redis is there): clients that honour Retry-After are never banned however
// many share a key; a client that sends on while refused is banned within seconds.

const FREE = PLAN_LIMITS.free;
/** The service's default ban rule (BAN_AFTER_REFUSALS, BAN_SECONDS): what the figures in docs/operators.md are about. */
const POLICY = banPolicyOf(defaultConfig());
/** Simulated time a request takes before its sender acts on the answer. */
const ROUND_TRIP_MS = 20;

/** A deterministic random source (mulberry32), so a failing run can be replayed. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

interface Totals {
  requests: number;
  accepted: number;
  refused: number;
  banned: number;
}

/**
 * A client of the simulation: from `address`, with the key `subject`, starting at `startMs`
 * (from the simulation's start). A worker sends as fast as answers come and, when refused, waits
 * Retry-After plus 0–`jitterS` s; a one-shot client sends one request and leaves; a client that
 * ignores Retry-After sends 5 requests a second whatever the answers.
 */
interface SimulatedClient {
  address: string;
  subject: string;
  startMs: number;
  kind: 'worker' | 'one-shot' | 'ignores Retry-After';
}

/** A distinct client address for the `i`-th client. */
const addressOf = (i: number) => `address:10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;

/** Crowds of clients that honour Retry-After, of `keys` Free keys: none may be banned. */
const CROWDS: { pattern: string; clients: () => SimulatedClient[]; keys: number }[] = [
  ...[1, 10, 50, 200].map((workers) => ({
    pattern: `${workers} worker${workers === 1 ? '' : 's'} of one key from one address, starting together,`,
    clients: () =>
      Array.from({ length: workers }, (): SimulatedClient => ({
        address: 'address:203.0.113.1',
        subject: 'key:shared',
        startMs: 0,
        kind: 'worker',
      })),
    keys: 1,
  })),
  ...[2, 5].map((perSecond) => ({
    pattern: `one-shot clients of one key arriving at ${perSecond} a second from their own addresses`,
    clients: () =>
      Array.from({ length: 10 * 60 * perSecond }, (_, i): SimulatedClient => ({
        address: addressOf(i),
        subject: 'key:shared',
        startMs: Math.round((i * 1000) / perSecond),
        kind: 'one-shot',
      })),
    keys: 1,
  })),
  {
    pattern: '150 workers of one key starting over 120 s from their own addresses',
    clients: () => {
      const rand = random(150);
      return Array.from({ length: 150 }, (_, i): SimulatedClient => ({
        address: addressOf(i),
        subject: 'key:shared',
        startMs: Math.round(rand() * 120_000),
        kind: 'worker',
      }));
    },
    keys: 1,
  },
  {
    pattern: '50 users of their own keys behind one address',
    clients: () =>
      Array.from({ length: 50 }, (_, i): SimulatedClient => ({
        address: 'address:192.0.2.10',
        subject: `key:user-${i}`,
        startMs: i * 100,
        kind: 'worker',
      })),
    keys: 50,
  },
];

/**
 * The simulated clients, each sending as its kind says, for `minutes` simulated minutes, with
 * Retry-After jitter of 0–`jitterS` s. Events are processed in time order on the limiter's clock.
 * Returns the totals, and when the first ban was answered (ms from the start; null if never).
 */
async function simulate(counters: LimitCounters, clients: SimulatedClient[], jitterS: number, minutes: number, seed: number) {
  const clock = new FakeClock();
  const limiter = new RateLimiter(counters, clock, POLICY);
  const rand = random(seed);
  const end = clock.now() + minutes * 60_000;
  // Next send time of each client (Infinity once a one-shot client has sent).
  const next = clients.map((client) => clock.now() + client.startMs);
  const totals: Totals = { requests: 0, accepted: 0, refused: 0, banned: 0 };
  let firstBanMs: number | null = null;
  for (;;) {
    let c = 0;
    for (let i = 1; i < clients.length; i++) if (next[i]! < next[c]!) c = i;
    if (next[c]! >= end) return { totals, firstBanMs };
    clock.advance(next[c]! - clock.now());
    const client = clients[c]!;
    const decision = await limiter.check(client.subject, FREE, client.address);
    totals.requests++;
    if (decision.outcome === 'allowed') {
      totals.accepted++;
      next[c] = clock.now() + ROUND_TRIP_MS;
    } else {
      if (decision.outcome === 'banned') {
        totals.banned++;
        firstBanMs ??= clock.now() - (end - minutes * 60_000);
      } else totals.refused++;
      // Whole milliseconds, as Date.now() gives.
      next[c] = clock.now() + ROUND_TRIP_MS + decision.retryAfter! * 1000 + Math.round(rand() * jitterS * 1000);
    }
    if (client.kind === 'one-shot') next[c] = Infinity;
    if (client.kind === 'ignores Retry-After') next[c] = clock.now() + 200;
  }
}

/** The figures of every simulated pattern, printed as one table at the end. */
const figures: Record<string, string | number | null>[] = [];

/**
 * One client sending `perSecond` requests a second from the start of a window, ignoring every
 * answer, for `seconds` after its first 429. Returns the seconds from that first 429 to its ban
 * (null if never banned) and the totals.
 */
async function hostileClient(counters: LimitCounters, perSecond: number, seconds: number, startInWindowS: number) {
  const clock = new FakeClock(Date.parse('2026-06-01T12:00:00Z') + startInWindowS * 1000);
  const limiter = new RateLimiter(counters, clock, POLICY);
  const totals: Totals = { requests: 0, accepted: 0, refused: 0, banned: 0 };
  let firstRefusal: number | null = null;
  let bannedAfter: number | null = null;
  while (firstRefusal === null || clock.now() - firstRefusal < seconds * 1000) {
    const decision = await limiter.check('key:hostile', FREE, 'address:198.51.100.7');
    totals.requests++;
    if (decision.outcome === 'allowed') totals.accepted++;
    else {
      firstRefusal ??= clock.now();
      if (decision.outcome === 'banned') {
        totals.banned++;
        bannedAfter ??= (clock.now() - firstRefusal) / 1000;
      } else totals.refused++;
    }
    clock.advance(Math.round(1000 / perSecond));
  }
  return { bannedAfter, totals };
}

const redisClients: Redis[] = [];
/** Times the Redis counters fell back to memory (Redis did not answer in time): must stay 0. */
let fallbacks = 0;
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  console.table(figures);
  for (const client of redisClients) client.disconnect();
  for (const cleanup of cleanups) await cleanup();
});

const engines: [string, boolean, () => Promise<LimitCounters>][] = [
  ['memory', true, () => Promise.resolve(memoryCounters())],
  [
    'Redis',
    redisEnabled(),
    async () => {
      const { prefix, cleanup } = newRedisPrefix();
      cleanups.push(cleanup);
      // 2 s: a local Redis answers in well under a millisecond, and a command that times out on
      // a busy machine would be counted in memory (the fallback), which the tests refuse.
      const client = await readyRedis({ url: TEST_REDIS_URL, commandTimeoutMs: 2_000 });
      redisClients.push(client);
      return redisCounters(client, prefix, () => {
        fallbacks++;
      });
    },
  ],
];

describe.each(engines)('bans on %s counters', (engine, enabled, counters) => {
  const record = (pattern: string, workers: number, totals: Totals, bannedAfterS: number | null = null) => {
    figures.push({ engine, pattern, workers, ...totals, 'banned after (s)': bannedAfterS });
    console.log(
      `${engine}: ${pattern}: ${workers} clients, ${totals.requests} requests, ${totals.accepted} accepted, ${totals.refused} refused, ${totals.banned} banned`,
    );
  };

  it.runIf(enabled).each(CROWDS)(
    'never bans $pattern that honour Retry-After with 0–10 s of jitter, over 10 minutes',
    async ({ pattern, clients, keys }) => {
      const crowd = clients();
      const { totals } = await simulate(await counters(), crowd, 10, 10, crowd.length);
      record(pattern, crowd.length, totals);
      expect(totals.banned).toBe(0);
      expect(fallbacks).toBe(0);
      // Each key was used to its limit in every one of the 10 windows (the first is partly over at the start).
      expect(totals.accepted).toBeGreaterThanOrEqual(keys * FREE.perMinute * 10);
      expect(totals.refused).toBeGreaterThan(0);
    },
    300_000,
  );

  it.runIf(enabled)(
    'bans a key within 15 s when one of 150 workers sharing it ignores Retry-After at 5 requests a second',
    async () => {
      const crowd = CROWDS.find((c) => c.pattern.startsWith('150 workers'))!.clients();
      // From 60 s on, when the window is long used up: its first request is refused.
      const hostile: SimulatedClient = {
        address: 'address:198.51.100.7',
        subject: 'key:shared',
        startMs: 60_000,
        kind: 'ignores Retry-After',
      };
      const { totals, firstBanMs } = await simulate(await counters(), [...crowd, hostile], 10, 2, 151);
      const bannedAfterS = firstBanMs === null ? null : (firstBanMs - hostile.startMs) / 1000;
      record('150 workers ramping up, one of them ignoring Retry-After at 5/s from 60 s', 151, totals, bannedAfterS);
      expect(fallbacks).toBe(0);
      expect(bannedAfterS).not.toBeNull();
      expect(bannedAfterS!).toBeGreaterThanOrEqual(0);
      expect(bannedAfterS!).toBeLessThanOrEqual(15);
    },
    120_000,
  );

  it.runIf(enabled).each([
    [5, 0],
    [5, 30],
    [20, 0],
    [200, 10],
  ])(
    'bans a client that sends %i requests a second for 10 s after its first 429 (starting %i s into a window) within 15 s',
    async (perSecond, start) => {
      const { bannedAfter, totals } = await hostileClient(await counters(), perSecond, 10, start);
      record(`one client ignoring Retry-After at ${perSecond}/s, from ${start} s into a window`, 1, totals, bannedAfter);
      expect(bannedAfter).not.toBeNull();
      expect(fallbacks).toBe(0);
      expect(bannedAfter!).toBeLessThanOrEqual(15);
    },
    60_000,
  );
});
