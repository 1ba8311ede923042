import { once } from 'node:events';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Config } from './config/settings.js';
import type { LimitCounters } from './limits/counters.js';
import { memoryCounters } from './limits/memory-counters.js';
import type { ServiceMetrics } from './metrics/service-metrics.js';
import { retryAtStart } from './retry-at-start.js';

/** The limiter's counters, and the Redis connection they use (null in memory). */
export interface OpenedCounters {
  counters: LimitCounters;
  redis: Redis | null;
}

/** How often, at most, a Redis command that failed is logged. */
const FALLBACK_LOG_INTERVAL_MS = 10_000;

/**
 * The counters of the rate limiter: in this instance's memory, or in Redis with REDIS_URL, once
 * Redis answers (waited for up to STARTUP_TIMEOUT_MS). A Redis that fails later is counted in
 * `metrics` and logged; this instance then counts in memory until Redis is back, and adds those
 * counts to Redis then (logged with the number of keys).
 */
export async function openLimitCounters(
  config: Pick<Config, 'limiterMaxEntries' | 'redisUrl' | 'redisTimeoutMs' | 'redisKeyPrefix' | 'startupTimeoutMs'>,
  logger: Logger,
  metrics: ServiceMetrics,
): Promise<OpenedCounters> {
  if (!config.redisUrl) return { counters: memoryCounters(config.limiterMaxEntries), redis: null };
  // Loaded only with REDIS_URL, so a single instance starts without ioredis.
  const { connectRedis, redisCounters } = await import('./limits/redis-counters.js');
  const redis = connectRedis({
    url: config.redisUrl,
    commandTimeoutMs: config.redisTimeoutMs,
    onStateChange: (state, error) =>
      state === 'ready'
        ? logger.info('Redis is back: limits and bans are shared again')
        : logger.warn({ err: error }, 'Redis is unavailable: this instance counts limits in its own memory until it is back'),
  });
  try {
    await retryAtStart(
      `Redis at ${new URL(config.redisUrl).host}`,
      () => (redis.status === 'ready' ? redis.ping().then(() => undefined) : untilReady(redis, 1_000)),
      config.startupTimeoutMs,
      (reason, waitMs) => logger.warn({ reason, retryInMs: waitMs }, 'Redis does not answer yet; trying again'),
    );
  } catch (error) {
    redis.disconnect();
    throw error;
  }
  let lastFallbackLog = 0;
  const counters = redisCounters(
    redis,
    config.redisKeyPrefix,
    () => {
      metrics.redisFallback();
      // A slow Redis fails commands without an error event: say so, now and then.
      if (Date.now() - lastFallbackLog > FALLBACK_LOG_INTERVAL_MS) {
        lastFallbackLog = Date.now();
        logger.warn('a Redis command failed or timed out: counting this request in memory');
      }
    },
    config.limiterMaxEntries,
    (keys) => logger.info({ keys }, 'added to Redis what this instance counted in memory while Redis failed'),
  );
  return { counters, redis };
}

/** Resolves when the Redis client becomes ready within `ms`; rejects with its connection error, or its state. */
async function untilReady(client: Redis, ms: number): Promise<void> {
  await once(client, 'ready', { signal: AbortSignal.timeout(ms) }).catch((error: Error) => {
    throw error.name === 'AbortError' ? new Error(`Redis connection is ${client.status}`) : error;
  });
}
