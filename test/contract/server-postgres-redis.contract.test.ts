import type { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import { connectRedis, redisCounters } from '../../src/limits/redis-counters.js';
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
}
