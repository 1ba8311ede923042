import type { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import type { LimitCounters } from '../../src/service/limits/counters.js';
import { RateLimiter } from '../../src/service/limits/limiter.js';
import { memoryCounters } from '../../src/service/limits/memory-counters.js';
import { connectRedis, REDIS_RETRY_AFTER_MS, redisCounters } from '../../src/service/limits/redis-counters.js';
import { FakeClock } from '../support/fake-clock.js';
import { newRedisPrefix, redisEnabled, TEST_REDIS_URL } from '../support/services.js';
import { startTcpProxy } from '../../scripts/support/tcp-proxy.js';
import { PLAN_LIMITS } from '../../src/service/limits/plans.js';
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

/** Two "instances": each its own Redis connection and limiter, sharing one key prefix and clock. */
function twoInstances(url = TEST_REDIS_URL) {
  const { prefix, cleanup } = newRedisPrefix();
  cleanups.push(cleanup);
  const clock = new FakeClock();
  let fallbacks = 0;
  const make = () => {
    const client = connectRedis({ url, commandTimeoutMs: 200 });
    clients.push(client);
    return new RateLimiter(
      redisCounters(client, prefix, () => fallbacks++),
      clock,
      policy,
    );
  };
  return { a: make(), b: make(), clock, fallbacks: () => fallbacks };
}

async function ready(limiter: RateLimiter) {
  // Connections come up asynchronously; until then the fallback counts, which this waits out.
  const client = clients.at(-1)!;
  for (let i = 0; i < 50 && client.status !== 'ready'; i++) await new Promise((r) => setTimeout(r, 20));
  return limiter;
}

describe.skipIf(!enabled)('rate limits in Redis', () => {
  it('counts one key across instances: 60 a minute in total, then 429', async () => {
    const { a, b } = twoInstances();
    await ready(a);
    await ready(b);
    const outcomes = { a: 0, b: 0 };
    for (let i = 0; i < 60; i++) {
      const which = i % 2 === 0 ? 'a' : 'b';
      const decision = await (which === 'a' ? a : b).check('key:k1', free, 'address:192.0.2.1');
      expect(decision.outcome).toBe('allowed');
      expect(decision.remaining).toBe(59 - i);
      outcomes[which]++;
    }
    expect(outcomes).toEqual({ a: 30, b: 30 });
    expect((await a.check('key:k1', free, 'address:192.0.2.1')).outcome).toBe('rate_limited');
    expect((await b.check('key:k1', free, 'address:192.0.2.1')).outcome).toBe('rate_limited');
  });

  it('holds a ban made on one instance on the other', async () => {
    const { a, b, clock } = twoInstances();
    await ready(a);
    await ready(b);
    const tight = { perMinute: 1, perDay: 100 };
    await a.check('key:k2', tight, 'address:192.0.2.1');
    expect((await a.check('key:k2', tight, 'address:192.0.2.1')).outcome).toBe('rate_limited');
    clock.advance(2_000);
    const outcomes = [];
    for (let i = 0; i < 4; i++) outcomes.push((await a.check('key:k2', tight, 'address:192.0.2.1')).outcome);
    expect(outcomes).toEqual(['rate_limited', 'rate_limited', 'rate_limited', 'banned']);
    clock.advance(60_000);
    const onB = await b.check('key:k2', tight, 'address:192.0.2.1');
    expect(onB).toMatchObject({ outcome: 'banned', retryAfter: 60 });
    clock.advance(60_000);
    expect((await b.check('key:k2', tight, 'address:192.0.2.1')).outcome).toBe('allowed');
  });

  it('keeps answering from memory while Redis is down or silent, says so, and shares again once it is back', async () => {
    const url = new URL(TEST_REDIS_URL);
    const proxy = await startTcpProxy(url.hostname, Number(url.port || 6379));
    try {
      const viaProxy = `redis://127.0.0.1:${proxy.port}`;
      const { a, b, fallbacks } = twoInstances(viaProxy);
      await ready(a);
      await ready(b);
      expect((await a.check('key:k3', free, 'address:192.0.2.1')).remaining).toBe(59);
      expect(fallbacks()).toBe(0);

      // Connected but silent: commands time out, and the memory answers. Only a request's first
      // commands, sent together, go to Redis and fail as one round; the day counter is asked of
      // memory at once, and so is everything for a while after.
      proxy.setMode('stall');
      const started = Date.now();
      const silent = await b.check('key:k3', free, 'address:192.0.2.1');
      const waited = Date.now() - started;
      expect(silent.outcome).toBe('allowed');
      expect(fallbacks()).toBe(1);
      console.log(`Redis silent: answered from memory after ${waited} ms (command timeout 200 ms)`);
      const next = await b.check('key:k3', free, 'address:192.0.2.1');
      expect(next.outcome).toBe('allowed');
      expect(fallbacks(), 'a request right after asks nothing of the silent Redis').toBe(1);

      // Down: connections refused, and the memory answers at once.
      proxy.setMode('refuse');
      await new Promise((r) => setTimeout(r, 50));
      const down = await a.check('key:k3', free, 'address:192.0.2.1');
      expect(down.outcome).toBe('allowed');

      proxy.setMode('forward');
      for (let i = 0; i < 100 && clients.at(-1)!.status !== 'ready'; i++) await new Promise((r) => setTimeout(r, 50));
      for (let i = 0; i < 100 && clients.at(-2)!.status !== 'ready'; i++) await new Promise((r) => setTimeout(r, 50));
      await new Promise((r) => setTimeout(r, REDIS_RETRY_AFTER_MS));
      const before = fallbacks();
      // Back in Redis: the count continues from what Redis had (1), not from memory.
      expect((await a.check('key:k3', free, 'address:192.0.2.1')).remaining).toBe(58);
      expect((await b.check('key:k3', free, 'address:192.0.2.1')).remaining).toBe(57);
      expect(fallbacks()).toBe(before);
    } finally {
      await proxy.close();
    }
  }, 30_000);

  it('leaves a connection on which Redis stopped answering, and shares limits again soon after Redis answers', async () => {
    const url = new URL(TEST_REDIS_URL);
    const proxy = await startTcpProxy(url.hostname, Number(url.port || 6379));
    try {
      const { a, b } = twoInstances(`redis://127.0.0.1:${proxy.port}`);
      await ready(a);
      await ready(b);
      let probes = 0;
      /** Whether one count, made on a new key on each instance in turn, is shared (Redis) or not (memory). */
      const shared = async () => {
        const key = `key:stall-${probes++}`;
        await a.check(key, free, 'address:192.0.2.1');
        return (await b.check(key, free, 'address:192.0.2.1')).remaining === free.perMinute - 2;
      };
      expect(await shared()).toBe(true);

      // The connections stay open but nothing comes back on them (a lost NAT or firewall state,
      // a hung server); new ones are accepted and never answered either.
      proxy.setMode('stall');
      await new Promise((r) => setTimeout(r, 3_000));
      expect(await shared()).toBe(false);

      // Redis answers again, but only on new connections: the stalled ones stay silent.
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
