import { afterAll, describe, expect, it } from 'vitest';
import { REDIS_RETRY_AFTER_MS, redisCounters } from '../../src/service/limits/redis-counters.js';
import { PostgresStore } from '../../src/service/store/postgres/postgres-store.js';
import {
  dropTestSchemas,
  newRedisPrefix,
  newSchemaName,
  postgresEnabled,
  readyRedis,
  redisEnabled,
  TEST_DATABASE_URL,
  TEST_REDIS_URL,
  untilReady,
} from '../support/services.js';
import { startTcpProxy } from '../../scripts/support/tcp-proxy.js';
import { prometheusMetrics } from '../../src/service/metrics/prometheus.js';
import { startTestServer } from '../support/test-server.js';
import { BASE_PATH } from '../support/base-path.js';

afterAll(() => dropTestSchemas());

/**
 * What an unavailable PostgreSQL costs a request here: a connection or a query given up after
 * 2 s. While it answers, nothing may come near that: a local connection is made in milliseconds
 * (a few tens with both cores busy), and a timeout there would fail a request meant to succeed.
 */
const FAULT_TIMEOUTS = { connectTimeoutMs: 2_000, queryTimeoutMs: 2_000 };

/**
 * How soon the service serves again once PostgreSQL answers: at the next request, on a new
 * connection. 10 s, the bound the stalled case states, leaves a loaded machine a wide margin.
 */
const RECOVERY_MS = 10_000;

/** Calls `attempt` (100 ms apart) until it returns true or RECOVERY_MS have passed; whether it did. */
async function recovers(attempt: () => Promise<boolean>): Promise<boolean> {
  for (const deadline = Date.now() + RECOVERY_MS; Date.now() < deadline; await new Promise((r) => setTimeout(r, 100))) {
    if (await attempt()) return true;
  }
  return false;
}

/** A TCP proxy in front of a service URL, and the same URL pointing at the proxy. */
async function proxied(url: string, defaultPort: number) {
  const target = new URL(url);
  const proxy = await startTcpProxy(target.hostname, Number(target.port || defaultPort));
  const via = new URL(url);
  via.hostname = '127.0.0.1';
  via.port = String(proxy.port);
  return { proxy, url: via.toString() };
}

describe.skipIf(!postgresEnabled())('PostgreSQL down or slow', () => {
  it('answers 503 with Retry-After within the timeouts, never 401, reports it on /readyz, and recovers by itself', async () => {
    const { proxy, url } = await proxied(TEST_DATABASE_URL, 5432);
    const store = await PostgresStore.open({
      url,
      schema: newSchemaName(),
      ...FAULT_TIMEOUTS,
      onPoolError: () => {},
    });
    const server = await startTestServer({ store });
    try {
      const key = await server.newKey('pro');
      const get = async (path = '/pets') => {
        const started = Date.now();
        const response = await fetch(`${server.baseUrl}${path}`, { headers: { Authorization: `Bearer ${key}` } });
        return { response, ms: Date.now() - started, body: (await response.json()) as { code?: string } };
      };
      expect((await get()).response.status).toBe(200);

      const timings: string[] = [];
      for (const mode of ['stall', 'blackhole', 'refuse'] as const) {
        proxy.setMode(mode);
        for (const path of ['/pets', '/pets/1']) {
          const { response, ms, body } = await get(path);
          expect(response.status, `${mode} ${path}`).toBe(503);
          expect(body.code).toBe('service_unavailable');
          expect(response.headers.get('retry-after')).toBe('5');
          expect(response.headers.get('x-ratelimit-limit')).not.toBeNull();
          timings.push(`${mode} ${path}: ${ms} ms`);
        }
        const posted = await fetch(`${server.baseUrl}/pets`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
          body: '{"name":"Rex","categoryId":1}',
        });
        expect(posted.status, `${mode} POST`).toBe(503);
        expect((await fetch(`${server.origin}/readyz`)).status).toBe(503);
      }
      console.log(`PostgreSQL unavailable → 503 after: ${timings.join(', ')} (connect and query timeouts 2 s)`);

      proxy.setMode('forward');
      expect(await recovers(async () => (await get()).response.status === 200), 'serves again').toBe(true);
      expect((await fetch(`${server.origin}/readyz`)).status).toBe(200);
    } finally {
      await server.close();
      await proxy.close();
    }
  }, 60_000);
});

describe.skipIf(!postgresEnabled())('PostgreSQL stalled, then answering again', () => {
  // A stall (a hung backend, a silent middlebox) leaves connections open that never answer
  // again; a pool that took them back would time out on them forever after the stall.
  it('serves every request again within 10 s of PostgreSQL answering, with /readyz back to 200', async () => {
    const { proxy, url } = await proxied(TEST_DATABASE_URL, 5432);
    const store = await PostgresStore.open({
      url,
      schema: newSchemaName(),
      ...FAULT_TIMEOUTS,
      onPoolError: () => {},
    });
    const server = await startTestServer({ store });
    try {
      const key = await server.newKey('pro');
      const get = (path: string, headers: Record<string, string> = {}) =>
        fetch(`${server.origin}${path}`, { headers }).then(async (response) => (await response.arrayBuffer(), response.status));
      const list = () => get(`${BASE_PATH}/pets`, { Authorization: `Bearer ${key}` });
      // Several connections in the pool, each held by a query when the stall begins.
      expect(await Promise.all(Array.from({ length: 5 }, list))).toEqual([200, 200, 200, 200, 200]);
      proxy.setMode('stall');
      expect(await Promise.all(Array.from({ length: 5 }, list))).toEqual([503, 503, 503, 503, 503]);
      expect(await get('/readyz')).toBe(503);
      proxy.setMode('forward');
      const deadline = Date.now() + RECOVERY_MS;
      let streak = 0;
      while (streak < 30 && Date.now() < deadline) streak = (await list()) === 200 ? streak + 1 : 0;
      expect(streak, `consecutive 200s within ${RECOVERY_MS / 1000} s of the stall ending`).toBe(30);
      expect(await Promise.all(Array.from({ length: 5 }, () => get('/readyz')))).toEqual([200, 200, 200, 200, 200]);
    } finally {
      await server.close();
      await proxy.close();
    }
  }, 60_000);
});

describe.skipIf(!postgresEnabled())('PostgreSQL down, keys that cannot be checked', () => {
  // Counted against the anonymous per-address limit, each such request would turn an outage
  // into 429s and then a 600 s ban of the address, outliving the outage.
  it('answers 503 to every request, counts none against the address, and bans no address', async () => {
    const { proxy, url } = await proxied(TEST_DATABASE_URL, 5432);
    const store = await PostgresStore.open({
      url,
      schema: newSchemaName(),
      ...FAULT_TIMEOUTS,
      onPoolError: () => {},
    });
    const { metrics, registry } = prometheusMetrics();
    const server = await startTestServer({
      store,
      anonymousLimits: { perMinute: 5, perDay: 100 },
      ban: { banAfterRefusals: 3, banSeconds: 600 },
      metrics,
    });
    try {
      const key = await server.newKey('pro');
      const get = (headers: Record<string, string>) => fetch(`${server.baseUrl}/pets`, { headers });
      proxy.setMode('refuse');
      const statuses: number[] = [];
      for (let i = 0; i < 20; i++) {
        const response = await get({ Authorization: `Bearer ${key}` });
        await response.arrayBuffer();
        statuses.push(response.status);
      }
      expect(statuses).toEqual(Array.from({ length: 20 }, () => 503));
      // Each counted as a store error in the metrics.
      expect(await registry.getSingleMetricAsString('animal_store_store_errors_total')).toMatch(/^animal_store_store_errors_total 20$/m);
      proxy.setMode('forward');
      expect(await recovers(async () => (await get({ Authorization: `Bearer ${key}` })).status === 200), 'serves again').toBe(true);
      // The address was neither used up nor banned: a request without a key is only a 401.
      const anonymous = await get({});
      expect(anonymous.status).toBe(401);
      expect(anonymous.headers.get('x-ratelimit-remaining')).toBe('4');
    } finally {
      await server.close();
      await proxy.close();
    }
  }, 60_000);
});

describe.skipIf(!redisEnabled())('Redis down or slow', () => {
  it('keeps answering with the rate-limit headers from memory, and shares limits again when Redis is back', async () => {
    const { proxy, url } = await proxied(TEST_REDIS_URL, 6379);
    const { prefix, cleanup } = newRedisPrefix();
    // 2 s: each stalled request waits this long; while Redis forwards, no command comes near it
    // (a local PING takes 0.2 ms, at most 7 ms with both cores busy), so none falls back to memory.
    const client = await readyRedis({ url, commandTimeoutMs: 2_000 });
    let fallbacks = 0;
    const server = await startTestServer({ counters: redisCounters(client, prefix, () => fallbacks++) });
    try {
      const key = await server.newKey('free');
      const get = () => fetch(`${server.baseUrl}/pets`, { headers: { Authorization: `Bearer ${key}` } });
      expect((await get()).headers.get('x-ratelimit-remaining')).toBe('59');
      expect(fallbacks, 'counted in Redis').toBe(0);
      for (const mode of ['stall', 'refuse'] as const) {
        proxy.setMode(mode);
        const started = Date.now();
        const response = await get();
        expect(response.status, mode).toBe(200);
        expect(response.headers.get('x-ratelimit-limit')).toBe('60');
        console.log(`Redis ${mode}: answered from memory in ${Date.now() - started} ms`);
      }
      expect(fallbacks).toBeGreaterThan(0);
      proxy.setMode('forward');
      await untilReady(client);
      // Redis is asked again REDIS_RETRY_AFTER_MS after its last failure, which came before this.
      await new Promise((r) => setTimeout(r, REDIS_RETRY_AFTER_MS));
      const before = fallbacks;
      // The 2 requests counted in memory meanwhile were added to Redis first: 1 + 2 + this one.
      expect((await get()).headers.get('x-ratelimit-remaining')).toBe('56');
      expect(fallbacks, 'counted in Redis again').toBe(before);
    } finally {
      client.disconnect();
      await server.close();
      await proxy.close();
      await cleanup();
    }
  }, 30_000);
});
