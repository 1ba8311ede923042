import { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis } from 'rate-limiter-flexible';
import { buildCounters, type Counter, type LimitCounters } from './counters.js';

/**
 * After Redis fails a command, the counters go straight to memory for this long before asking
 * Redis again: a request never waits for more than one command timeout (its first commands are
 * sent together; the ones after a failure do not wait again), and while Redis is silent only
 * one round of commands a second pays the timeout.
 */
export const REDIS_RETRY_AFTER_MS = 1000;

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

/** Whether Redis failed a command recently: shared by the four counters of an instance. */
class Breaker {
  private openUntil = 0;
  constructor(private readonly onFallback: () => void) {}
  isOpen(): boolean {
    return Date.now() < this.openUntil;
  }
  /** Redis failed a command (down, or silent beyond the timeout). */
  trip(): void {
    this.openUntil = Date.now() + REDIS_RETRY_AFTER_MS;
    this.onFallback();
  }
}

/**
 * A memory limiter that trips the breaker when rate-limiter-flexible falls back to it, that is,
 * when it is used while the breaker is closed (while it is open, the counters use it directly).
 */
class FallbackLimiter extends RateLimiterMemory {
  constructor(
    options: ConstructorParameters<typeof RateLimiterMemory>[0],
    private readonly breaker: Breaker,
  ) {
    super(options);
  }
  override consume(...args: Parameters<RateLimiterMemory['consume']>) {
    if (!this.breaker.isOpen()) this.breaker.trip();
    return super.consume(...args);
  }
  override get(...args: Parameters<RateLimiterMemory['get']>) {
    if (!this.breaker.isOpen()) this.breaker.trip();
    return super.get(...args);
  }
  override set(...args: Parameters<RateLimiterMemory['set']>) {
    if (!this.breaker.isOpen()) this.breaker.trip();
    return super.set(...args);
  }
}

/** One counter: Redis, or, while the breaker is open, the same memory Redis falls back to. */
class RedisOrMemoryCounter implements Counter {
  constructor(
    private readonly redis: RateLimiterRedis,
    private readonly memory: FallbackLimiter,
    private readonly breaker: Breaker,
  ) {}
  get(key: string) {
    return this.breaker.isOpen() ? this.memory.get(key) : this.redis.get(key);
  }
  consume(key: string, points?: number, options?: { customDuration?: number }) {
    return this.breaker.isOpen() ? this.memory.consume(key, points, options) : this.redis.consume(key, points, options);
  }
  set(key: string, points: number, secDuration: number) {
    return this.breaker.isOpen() ? this.memory.set(key, points, secDuration) : this.redis.set(key, points, secDuration);
  }
  delete(key: string) {
    return this.breaker.isOpen() ? this.memory.delete(key) : this.redis.delete(key);
  }
}

/**
 * Counters in Redis, shared by every instance: limits and bans hold across them. When Redis
 * fails a command (down, slow beyond the timeout), rate-limiter-flexible's insurance limiter
 * counts in this instance's memory instead, and `onFallback` is told; for REDIS_RETRY_AFTER_MS
 * after that the memory answers without asking Redis; then Redis is asked again, and used as
 * soon as it answers.
 */
export function redisCounters(client: Redis, prefix: string, onFallback: () => void): LimitCounters {
  const breaker = new Breaker(onFallback);
  return buildCounters((name, options) => {
    const memory = new FallbackLimiter({ keyPrefix: `fallback:${name}`, ...options }, breaker);
    const redis = new RateLimiterRedis({
      storeClient: client,
      keyPrefix: `${prefix}:${name}`,
      rejectIfRedisNotReady: true,
      insuranceLimiter: memory,
      ...options,
    });
    return new RedisOrMemoryCounter(redis, memory, breaker);
  });
}
