import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisCounters } from '../../src/service/limits/redis-counters.js';
import { dropTestSchemas, newRedisPrefix, postgresEnabled, readyRedis, redisEnabled, TEST_REDIS_URL } from '../support/services.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import type { ContractTarget } from './cases.js';
import { defineContractSuite } from './define-suite.js';
import { serverTarget } from './server-target.js';

// The contract holds the same on the scale-out stack: PostgreSQL and Redis.
if (postgresEnabled() && redisEnabled()) {
  let server: TestServer;
  let target: ContractTarget;
  let client: Redis;
  const redisKeys = newRedisPrefix();
  let fallbacks = 0;

  beforeAll(async () => {
    // 10 s: a local Redis answers in well under a millisecond; a command timed out on a busy
    // machine would be counted in memory (the fallback) instead, which the last case refuses.
    client = await readyRedis({ url: TEST_REDIS_URL, commandTimeoutMs: 10_000 });
    server = await startTestServer({ engine: 'postgres', counters: redisCounters(client, redisKeys.prefix, () => fallbacks++) });
    target = await serverTarget(server);
  });
  afterAll(async () => {
    await server?.close();
    client?.disconnect();
    await redisKeys.cleanup();
    await dropTestSchemas();
  });

  defineContractSuite('the real server on PostgreSQL and Redis', () => target);
  it('counted every request in Redis, none in memory', () => expect(fallbacks).toBe(0));
} else {
  // Reported as skipped, with the reason, rather than as a file with no test (a failure).
  describe.skip('the real server on PostgreSQL and Redis (skipped: set TEST_DATABASE_URL and TEST_REDIS_URL, as .ci/run does)', () => {
    it('runs the contract suite on the scale-out stack', () => {});
  });
}
