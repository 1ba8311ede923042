import type { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import type { LimitCounters } from '../../src/service/limits/counters.js';
import { RateLimiter } from '../../src/service/limits/limiter.js';
import { memoryCounters } from '../../src/service/limits/memory-counters.js';
import { PLAN_LIMITS } from '../../src/service/limits/plans.js';
import { connectRedis, redisCounters } from '../../src/service/limits/redis-counters.js';
import { FakeClock } from '../support/fake-clock.js';
import { newRedisPrefix, redisEnabled, TEST_REDIS_URL } from '../support/services.js';
import { banPolicyOf } from '../../src/service/config/load-config.js';
import { defaultConfig } from '../../src/service/config/settings.js';

// The ban rule, simulated on the injectable clock against the real limiter (memory counters, and
// the Redis ones when Redis is there): clients that honour Retry-After are never banned however
// many share a key; a client that sends on while refused is banned within seconds.

const FREE = PLAN_LIMITS.free;
/** The service's default ban rule (BAN_AFTER_REFUSALS, BAN_SECONDS): what the README's figures are about. */
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
 * `workers` clients sharing one key, each sending as fast as answers come and, when refused,
 * waiting Retry-After plus 0–`jitterS` s of jitter, for `minutes` simulated minutes. Events are
 * processed in time order on the limiter's clock.
 */
async function honestWorkers(counters: LimitCounters, workers: number, jitterS: number, minutes: number, seed: number): Promise<Totals> {
  const clock = new FakeClock();
  const limiter = new RateLimiter(counters, clock, POLICY);
  const rand = random(seed);
  const end = clock.now() + minutes * 60_000;
  // Next send time of each worker; they all start together.
  const next = Array.from({ length: workers }, () => clock.now());
  const totals: Totals = { requests: 0, accepted: 0, refused: 0, banned: 0 };
  for (;;) {
    let w = 0;
    for (let i = 1; i < workers; i++) if (next[i]! < next[w]!) w = i;
    if (next[w]! >= end) return totals;
    clock.advance(next[w]! - clock.now());
    const decision = await limiter.check('key:shared', FREE);
    totals.requests++;
    if (decision.outcome === 'allowed') {
      totals.accepted++;
      next[w] = clock.now() + ROUND_TRIP_MS;
    } else {
      if (decision.outcome === 'banned') totals.banned++;
      else totals.refused++;
      // Whole milliseconds, as Date.now() gives.
      next[w] = clock.now() + ROUND_TRIP_MS + decision.retryAfter! * 1000 + Math.round(rand() * jitterS * 1000);
    }
  }
}

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
    const decision = await limiter.check('key:hostile', FREE);
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
      const client = connectRedis({ url: TEST_REDIS_URL, commandTimeoutMs: 2_000 });
      redisClients.push(client);
      for (let i = 0; i < 100 && client.status !== 'ready'; i++) await new Promise((r) => setTimeout(r, 20));
      return redisCounters(client, prefix, () => {
        fallbacks++;
      });
    },
  ],
];

describe.each(engines)('bans on %s counters', (_name, enabled, counters) => {
  it.runIf(enabled).each([1, 10, 50, 200])(
    'never bans %i workers sharing a Free key that honour Retry-After with 0–10 s of jitter, over 10 minutes',
    async (workers) => {
      const totals = await honestWorkers(await counters(), workers, 10, 10, workers);
      console.log(
        `${_name}: ${workers} honest workers, 10 simulated minutes: ${totals.requests} requests, ${totals.accepted} accepted, ${totals.refused} refused, ${totals.banned} banned`,
      );
      expect(totals.banned).toBe(0);
      expect(fallbacks).toBe(0);
      // The key was used to its limit in every one of the 10 windows (the first is partly over at the start).
      expect(totals.accepted).toBeGreaterThanOrEqual(FREE.perMinute * 10);
      expect(totals.refused).toBeGreaterThan(0);
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
      console.log(
        `${_name}: ${perSecond} requests/s ignoring Retry-After: ${totals.requests} requests, ${totals.accepted} accepted, ${totals.refused} refused, ${totals.banned} banned; banned ${bannedAfter} s after its first 429`,
      );
      expect(bannedAfter).not.toBeNull();
      expect(fallbacks).toBe(0);
      expect(bannedAfter!).toBeLessThanOrEqual(15);
    },
    60_000,
  );
});
