import { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis } from 'rate-limiter-flexible';
import { buildCounters, type LimitCounters } from './limiter.js';

/** Options of {@link connectRedis}. */
export interface RedisOptions {
  url: string;
  /** A command slower than this fails, and the instance counts in memory meanwhile. */
  commandTimeoutMs: number;
  /** Told when Redis goes away and when it is back. */
  onStateChange?: (state: 'unavailable' | 'ready', error?: Error) => void;
}

/**
 * An ioredis client that never queues or waits: while Redis is down or slow, commands fail at
 * once (or after the command timeout) so requests are never held up; it reconnects by itself.
 */
export function connectRedis(options: RedisOptions): Redis {
  const client = new Redis(options.url, {
    commandTimeout: options.commandTimeoutMs,
    connectTimeout: Math.max(1000, options.commandTimeoutMs),
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: (times) => Math.min(100 * times, 2000),
    lazyConnect: false,
  });
  let available = true;
  client.on('error', (error: Error) => {
    if (available) {
      available = false;
      options.onStateChange?.('unavailable', error);
    }
  });
  client.on('ready', () => {
    if (!available) {
      available = true;
      options.onStateChange?.('ready');
    }
  });
  return client;
}

/** A memory limiter that says when it is used: it only is when Redis failed a command. */
class FallbackLimiter extends RateLimiterMemory {
  constructor(
    options: ConstructorParameters<typeof RateLimiterMemory>[0],
    private readonly onUse: () => void,
  ) {
    super(options);
  }
  override consume(...args: Parameters<RateLimiterMemory['consume']>) {
    this.onUse();
    return super.consume(...args);
  }
  override get(...args: Parameters<RateLimiterMemory['get']>) {
    this.onUse();
    return super.get(...args);
  }
  override set(...args: Parameters<RateLimiterMemory['set']>) {
    this.onUse();
    return super.set(...args);
  }
}

/**
 * Counters in Redis, shared by every instance: limits and bans hold across them. When Redis
 * fails a command (down, slow beyond the timeout), rate-limiter-flexible's insurance limiter
 * counts in this instance's memory instead, and `onFallback` is told; Redis is used again as
 * soon as it answers.
 */
export function redisCounters(client: Redis, prefix: string, onFallback: () => void): LimitCounters {
  return buildCounters(
    (name, options) =>
      new RateLimiterRedis({
        storeClient: client,
        keyPrefix: `${prefix}:${name}`,
        rejectIfRedisNotReady: true,
        insuranceLimiter: new FallbackLimiter({ keyPrefix: `fallback:${name}`, ...options }, onFallback),
        ...options,
      }),
  );
}
