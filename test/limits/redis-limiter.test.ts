import type { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import type { LimitCounters } from '../../src/service/limits/counters.js';
import { RateLimiter } from '../../src/service/limits/limiter.js';
import { memoryCounters } from '../../src/service/limits/memory-counters.js';
import { connectRedis, REDIS_RETRY_AFTER_MS, redisCounters } from '../../src/service/limits/redis-counters.js';
import { FakeClock } from '../support/fake-clock.js';
import { newRedisPrefix, readyRedis, redisEnabled, TEST_REDIS_URL, untilReady } from '../support/services.js';
import { startTcpProxy } from '../../scripts/support/tcp-proxy.js';
import { PLAN_LIMITS, type Limits } from '../../src/service/limits/plans.js';
import { freePort } from '../../src/shared/free-port.js';

const enabled = redisEnabled();
const clients: Redis[] = [];
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of clients) c.disconnect();
  for (const cleanup of cleanups) await cleanup();
});

const policy = { banAfterRefusals: 3, banSeconds: 120 };
const free = PLAN_LIMITS.free;

/**
 * The command timeout where Redis is meant to answer. A local Redis answers a PING in 0.2 ms
 * (at most 7 ms with both cores busy), but the whole suite on a loaded machine once had a command
 * miss 200 ms, which was then counted in the instance's memory (the fallback) and showed as a
 * wrong count. 10 s is far beyond any such pause, and within the test's 30 s.
 */
const ANSWERING_TIMEOUT_MS = 10_000;
/**
 * The command timeout where a test stalls Redis on purpose: each stalled request waits this
 * long, and while Redis forwards, a command must still not time out. 2 s: ten times the pause
 * that once made a 200 ms timeout miss, and a stall still costs only 2 s of the test's 30 s.
 */
const STALLING_TIMEOUT_MS = 2_000;

/** Two "instances": each its own Redis connection and limiter, sharing one key prefix and clock; resolves once both connections are ready. */
async function twoInstances(url = TEST_REDIS_URL, commandTimeoutMs = ANSWERING_TIMEOUT_MS) {
  const { prefix, cleanup } = newRedisPrefix();
  cleanups.push(cleanup);
  const clock = new FakeClock();
  let fallbacks = 0;
  let checks = 0;
  const make = async () => {
    const client = await readyRedis({ url, commandTimeoutMs });
    clients.push(client);
    return [
      client,
      new RateLimiter(
        redisCounters(client, prefix, () => fallbacks++),
        clock,
        policy,
      ),
    ] as const;
  };
  const [[clientA, a], [clientB, b]] = [await make(), await make()];
  /**
   * `check` on `limiter`, failing unless Redis answered it: a count made in one instance's memory
   * is not shared, and would otherwise show as a wrong count.
   */
  const inRedis = (limiter: RateLimiter) => async (key: string, limits: Limits) => {
    const check = ++checks;
    const decision = await limiter.check(key, limits, 'address:192.0.2.1');
    expect(fallbacks, `check ${check}: Redis answered every command, nothing was counted in memory`).toBe(0);
    return decision;
  };
  return { a, b, clients: [clientA, clientB], clock, prefix, fallbacks: () => fallbacks, onA: inRedis(a), onB: inRedis(b) };
}

/** Both instances of {@link twoInstances} through one proxy to Redis, which a test can take down. */
async function twoInstancesBehindProxy() {
  const url = new URL(TEST_REDIS_URL);
  const proxy = await startTcpProxy(url.hostname, Number(url.port || 6379));
  cleanups.push(() => proxy.close());
  const instances = await twoInstances(`redis://127.0.0.1:${proxy.port}`, STALLING_TIMEOUT_MS);
  // Another instance's view, straight on Redis: what Redis holds, read without counting anything.
  const direct = await readyRedis({ url: TEST_REDIS_URL, commandTimeoutMs: ANSWERING_TIMEOUT_MS });
  clients.push(direct);
  const inRedis = redisCounters(direct, instances.prefix, () => {
    throw new Error('the direct connection to Redis failed');
  });
  const minuteIndex = () => Math.floor(instances.clock.now() / 60_000);
  return {
    ...instances,
    proxy,
    observer: new RateLimiter(inRedis, instances.clock, policy),
    /** The requests of `subject` Redis holds for the current minute. */
    countedInRedis: async (subject: string) => (await inRedis.minute.get(`${subject}:${minuteIndex()}`))?.consumedPoints ?? 0,
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `probe` every 50 ms until it returns true or `ms` pass; the seconds it took, or null. */
async function within(ms: number, probe: () => Promise<boolean>): Promise<number | null> {
  const started = Date.now();
  while (Date.now() - started < ms) {
    if (await probe()) return (Date.now() - started) / 1000;
    await sleep(50);
  }
  return null;
}

describe.skipIf(!enabled)('rate limits in Redis', () => {
  it('counts one key across instances: 60 a minute in total, then 429', async () => {
    const { onA, onB } = await twoInstances();
    const outcomes = { a: 0, b: 0 };
    for (let i = 0; i < 60; i++) {
      const which = i % 2 === 0 ? 'a' : 'b';
      const decision = await (which === 'a' ? onA : onB)('key:k1', free);
      expect(decision.outcome).toBe('allowed');
      expect(decision.remaining).toBe(59 - i);
      outcomes[which]++;
    }
    expect(outcomes).toEqual({ a: 30, b: 30 });
    expect((await onA('key:k1', free)).outcome).toBe('rate_limited');
    expect((await onB('key:k1', free)).outcome).toBe('rate_limited');
  });

  it('holds a ban made on one instance on the other', async () => {
    const { onA, onB, clock } = await twoInstances();
    const tight = { perMinute: 1, perDay: 100 };
    await onA('key:k2', tight);
    expect((await onA('key:k2', tight)).outcome).toBe('rate_limited');
    clock.advance(2_000);
    const outcomes = [];
    for (let i = 0; i < 4; i++) outcomes.push((await onA('key:k2', tight)).outcome);
    expect(outcomes).toEqual(['rate_limited', 'rate_limited', 'rate_limited', 'banned']);
    clock.advance(60_000);
    const banned = await onB('key:k2', tight);
    expect(banned).toMatchObject({ outcome: 'banned', retryAfter: 60 });
    clock.advance(60_000);
    expect((await onB('key:k2', tight)).outcome).toBe('allowed');
  });

  it('keeps answering from memory while Redis is down or silent, says so, and shares again once it is back', async () => {
    const url = new URL(TEST_REDIS_URL);
    const proxy = await startTcpProxy(url.hostname, Number(url.port || 6379));
    try {
      const viaProxy = `redis://127.0.0.1:${proxy.port}`;
      const { a, b, onA, fallbacks, clients } = await twoInstances(viaProxy, STALLING_TIMEOUT_MS);
      expect((await onA('key:k3', free)).remaining).toBe(59);

      // Connected but silent: commands time out, and the memory answers. Only a request's first
      // commands, sent together, go to Redis and fail as one round; the day counter is asked of
      // memory at once, and so is everything for a while after.
      proxy.setMode('stall');
      const started = Date.now();
      const silent = await b.check('key:k3', free, 'address:192.0.2.1');
      const waited = Date.now() - started;
      expect(silent.outcome).toBe('allowed');
      expect(fallbacks()).toBe(1);
      console.log(`Redis silent: answered from memory after ${waited} ms (command timeout ${STALLING_TIMEOUT_MS} ms)`);
      // Right after: within REDIS_RETRY_AFTER_MS (1 s) of the failure, microseconds here.
      const next = await b.check('key:k3', free, 'address:192.0.2.1');
      expect(next.outcome).toBe('allowed');
      expect(fallbacks(), 'a request right after asks nothing of the silent Redis').toBe(1);

      // Down: connections refused, and the memory answers at once.
      proxy.setMode('refuse');
      const down = await a.check('key:k3', free, 'address:192.0.2.1');
      expect(down.outcome).toBe('allowed');

      proxy.setMode('forward');
      await Promise.all(clients.map(untilReady));
      // Redis is asked again REDIS_RETRY_AFTER_MS after an instance's last failure, which came before this.
      await new Promise((r) => setTimeout(r, REDIS_RETRY_AFTER_MS));
      const before = fallbacks();
      // Back in Redis: the count continues from what Redis had (1) and what each instance counted
      // in its memory meanwhile (b 2, a 1), which each added to Redis first.
      expect((await a.check('key:k3', free, 'address:192.0.2.1')).remaining).toBe(55);
      expect((await b.check('key:k3', free, 'address:192.0.2.1')).remaining).toBe(54);
      expect(fallbacks()).toBe(before);
    } finally {
      await proxy.close();
    }
  }, 30_000);

  it('leaves a connection on which Redis stopped answering, and shares limits again soon after Redis answers', async () => {
    const url = new URL(TEST_REDIS_URL);
    const proxy = await startTcpProxy(url.hostname, Number(url.port || 6379));
    try {
      const { a, b, fallbacks } = await twoInstances(`redis://127.0.0.1:${proxy.port}`, STALLING_TIMEOUT_MS);
      let probes = 0;
      /** Whether one count, made on a new key on each instance in turn, is shared (Redis) or not (memory). */
      const shared = async () => {
        const key = `key:stall-${probes++}`;
        await a.check(key, free, 'address:192.0.2.1');
        return (await b.check(key, free, 'address:192.0.2.1')).remaining === free.perMinute - 2;
      };
      expect(await shared()).toBe(true);
      expect(fallbacks(), 'Redis answered every command').toBe(0);

      // The connections stay open but nothing comes back on them (a lost NAT or firewall state,
      // a hung server); new ones are accepted and never answered either.
      proxy.setMode('stall');
      // Silent for 3 s, in which the watchdog's PINGs (one a second) go unanswered.
      await new Promise((r) => setTimeout(r, 3_000));
      expect(await shared()).toBe(false);

      // Redis answers again, but only on new connections: the stalled ones stay silent. Shared
      // again after 1.0 s, idle or with both cores busy: 10 s leaves a wide margin.
      proxy.setMode('forward');
      const answering = Date.now();
      while (!(await shared()) && Date.now() - answering < 10_000) await new Promise((r) => setTimeout(r, 100));
      const seconds = (Date.now() - answering) / 1000;
      console.log(`Redis answering again: limits shared again after ${seconds.toFixed(1)} s`);
      expect(seconds, 'limits are shared again within 10 s of Redis answering').toBeLessThan(10);
    } finally {
      await proxy.close();
    }
  }, 30_000);
});

describe.skipIf(!enabled)('counts made in memory during a Redis outage', () => {
  const sender = 'address:192.0.2.1';
  const allowed = async (limiter: RateLimiter, subject: string, limits: Limits = free) =>
    (await limiter.check(subject, limits, sender)).outcome === 'allowed';

  it('are added to Redis when it is back: two instances accept 2 × 60 in the minute, not 3 × 60', async () => {
    const { a, b, clients, proxy, countedInRedis } = await twoInstancesBehindProxy();
    proxy.setMode('refuse');
    let duringOutage = 0;
    for (let i = 0; i < 70; i++) for (const limiter of [a, b]) if (await allowed(limiter, 'key:k5')) duringOutage++;
    // The documented fallback: each instance allows the limit from its own memory.
    expect(duringOutage).toBe(120);

    proxy.setMode('forward');
    await Promise.all(clients.map(untilReady));
    await sleep(REDIS_RETRY_AFTER_MS);
    let afterwards = 0;
    for (let i = 0; i < 30; i++) for (const limiter of [a, b]) if (await allowed(limiter, 'key:k5')) afterwards++;
    expect(afterwards, 'the minute is used up: what the instances counted in memory is in Redis').toBe(0);
    // Each request of the minute counted once: 140 in memory, then 60 in Redis.
    expect(await countedInRedis('key:k5')).toBe(200);
  }, 30_000);

  it('carry a ban made in memory to the other instances, also from an instance that gets no request', async () => {
    const { a, b, clients, clock, proxy, observer } = await twoInstancesBehindProxy();
    const tight = { perMinute: 1, perDay: 100 };
    proxy.setMode('refuse');
    expect(await allowed(a, 'key:k6', tight)).toBe(true);
    expect(await allowed(a, 'key:k6', tight)).toBe(false);
    clock.advance(2_000);
    const outcomes = [];
    for (let i = 0; i < 4; i++) outcomes.push((await a.check('key:k6', tight, sender)).outcome);
    expect(outcomes).toEqual(['rate_limited', 'rate_limited', 'rate_limited', 'banned']);

    proxy.setMode('forward');
    await Promise.all(clients.map(untilReady));
    // Instance a carries its counts by itself, within about REDIS_RETRY_AFTER_MS of Redis answering.
    const seconds = await within(5_000, async () => (await observer.peek('key:k6', tight)).outcome === 'banned');
    console.log(`a ban made in memory was in Redis ${seconds?.toFixed(1)} s after Redis answered again`);
    expect(seconds, 'the ban reached Redis within 5 s').not.toBeNull();
    expect(await b.check('key:k6', tight, 'address:198.51.100.1')).toMatchObject({ outcome: 'banned', retryAfter: policy.banSeconds });
  }, 30_000);

  it('are added once, when Redis carried them but its answer was lost, and not lost meanwhile', async () => {
    const { a, clients, proxy, countedInRedis } = await twoInstancesBehindProxy();
    proxy.setMode('refuse');
    for (let i = 0; i < 5; i++) expect(await allowed(a, 'key:k7')).toBe(true);

    // Redis is back, then passes on what it is sent but none of its answers: it carries the 5,
    // and the instance, which never hears so, counts the request in memory and keeps both owed.
    proxy.setMode('forward');
    await untilReady(clients[0]!);
    proxy.setMode('mute');
    await sleep(REDIS_RETRY_AFTER_MS);
    expect(await allowed(a, 'key:k7')).toBe(true);
    expect(await countedInRedis('key:k7')).toBe(5);

    // Answers come again once the instance has replaced its silent connection: it sends the
    // same batch again, which Redis knows, and the one request counted since.
    proxy.setMode('forward');
    const seconds = await within(15_000, async () => (await countedInRedis('key:k7')) !== 5);
    expect(seconds, 'the rest was carried within 15 s').not.toBeNull();
    await sleep(REDIS_RETRY_AFTER_MS);
    expect(await countedInRedis('key:k7'), '5 carried once, and 1').toBe(6);
    expect((await a.check('key:k7', free, sender)).remaining).toBe(free.perMinute - 7);
  }, 30_000);
});

describe('the memory fallback of the Redis counters', () => {
  it('keeps at most maxEntries windows of client addresses while Redis is down', async () => {
    const client = connectRedis({ url: `redis://127.0.0.1:${await freePort()}`, commandTimeoutMs: 200 });
    clients.push(client);
    let fallbacks = 0;
    const counters = redisCounters(client, 'unused', () => fallbacks++, 1000);
    const address = (i: number) => `address:10.0.${i >> 8}.${i & 255}:20600`;
    await counters.day.consume('key:key_1:20600');
    for (let i = 0; i < 5000; i++) await counters.day.consume(address(i));
    expect(fallbacks).toBeGreaterThan(0);
    expect((await counters.day.get(address(4999)))?.consumedPoints).toBe(1);
    // The oldest addresses were pushed out; the API key's window was not.
    expect(await counters.day.get(address(0))).toBeNull();
    expect((await counters.day.get('key:key_1:20600'))?.consumedPoints).toBe(1);
  });
});

describe('the memory counters', () => {
  it('behave like the Redis ones for one instance', async () => {
    const counters: LimitCounters = memoryCounters();
    const limiter = new RateLimiter(counters, new FakeClock(), policy);
    for (let i = 0; i < 60; i++) expect((await limiter.check('key:m', free, 'address:192.0.2.1')).outcome).toBe('allowed');
    expect((await limiter.check('key:m', free, 'address:192.0.2.1')).outcome).toBe('rate_limited');
  });
});
