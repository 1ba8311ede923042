import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { connectRedis, redisCounters } from '../../src/service/limits/redis-counters.js';
import { dropTestSchemas, newRedisPrefix, postgresEnabled, redisEnabled, TEST_REDIS_URL } from '../support/services.js';
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

  beforeAll(async () => {
    client = connectRedis({ url: TEST_REDIS_URL, commandTimeoutMs: 500 });
    server = await startTestServer({ engine: 'postgres', counters: redisCounters(client, redisKeys.prefix, () => {}) });
    target = await serverTarget(server);
  });
  afterAll(async () => {
    await server?.close();
    client?.disconnect();
    await redisKeys.cleanup();
    await dropTestSchemas();
  });

  defineContractSuite('the real server on PostgreSQL and Redis', () => target);
} else {
  // Reported as skipped, with the reason, rather than as a file with no test (a failure).
  describe.skip('the real server on PostgreSQL and Redis (skipped: set TEST_DATABASE_URL and TEST_REDIS_URL, as .ci/run does)', () => {
    it('runs the contract suite on the scale-out stack', () => {});
  });
}
