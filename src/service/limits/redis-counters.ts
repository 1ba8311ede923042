import { Redis } from 'ioredis';
import { RateLimiterRedis } from 'rate-limiter-flexible';
import { buildCounters, type Counter, type Eventually, type LimitCounters } from './counters.js';
import { MEMORY_COUNTER_MAX_ENTRIES, memoryCounters } from './memory-counters.js';
import { OutageCounts, type SetKeeps } from './outage-counts.js';

/**
 * After Redis fails a command, the counters go straight to memory for this long before asking
 * Redis again: a request never waits for more than one command timeout (its first commands are
 * sent together; the ones after a failure do not wait again), and while Redis is silent only
 * one round of commands a second pays the timeout.
 */
export const REDIS_RETRY_AFTER_MS = 1000;

/**
 * How often an instance asks Redis for a PING (with the command timeout) to learn whether its
 * connection still answers; after STALLED_AFTER_PINGS unanswered in a row, the connection is
 * replaced. A connection can go half-open (a lost NAT or firewall state, a hung server): nothing
 * errors, commands time out one by one, and ioredis never reconnects by itself.
 */
const REDIS_PING_INTERVAL_MS = 1000;
const STALLED_AFTER_PINGS = 2;

/** Options of {@link connectRedis}. */
export interface RedisOptions {
  url: string;
  /** A command slower than this fails, and the instance counts in memory meanwhile. */
  commandTimeoutMs: number;
  /** Told when Redis goes away (or stops answering) and when it is back. */
  onStateChange?: (state: 'unavailable' | 'ready', error?: Error) => void;
}

/**
 * An ioredis client that never queues or waits: while Redis is down or slow, commands fail at
 * once (or after the command timeout) so requests are never held up; it reconnects by itself,
 * and replaces a connection on which Redis stopped answering (see REDIS_PING_INTERVAL_MS).
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
  const unavailable = (error: Error) => {
    if (available) {
      available = false;
      options.onStateChange?.('unavailable', error);
    }
  };
  client.on('error', unavailable);
  client.on('ready', () => {
    if (!available) {
      available = true;
      options.onStateChange?.('ready');
    }
  });
  let unanswered = 0;
  const watchdog = setInterval(() => {
    if (client.status !== 'ready') return void (unanswered = 0);
    client.ping().then(
      () => (unanswered = 0),
      (error: unknown) => {
        if (++unanswered < STALLED_AFTER_PINGS || client.status !== 'ready') return;
        unanswered = 0;
        unavailable(new Error(`Redis answered none of ${STALLED_AFTER_PINGS} PINGs in a row: replacing the connection`, { cause: error }));
        client.disconnect(true);
      },
    );
  }, REDIS_PING_INTERVAL_MS);
  watchdog.unref();
  client.on('end', () => clearInterval(watchdog));
  return client;
}

/**
 * Whether Redis failed a command recently, shared by the counters of an instance, and what they
 * counted in memory meanwhile (OutageCounts), carried into Redis before Redis is used again: by
 * the first request after REDIS_RETRY_AFTER_MS, or by a timer when none comes.
 */
class Breaker {
  private openUntil = 0;
  private carrying: Promise<void> | null = null;
  private retry: NodeJS.Timeout | null = null;
  constructor(
    private readonly client: Redis,
    readonly outage: OutageCounts,
    private readonly onFallback: () => void,
    private readonly onCarried: (keys: number) => void,
  ) {}
  isOpen(): boolean {
    return Date.now() < this.openUntil;
  }
  /** Redis failed a command (down, or silent beyond the timeout); `notify` unless it was a carry. */
  trip(notify = true): void {
    this.openUntil = Date.now() + REDIS_RETRY_AFTER_MS;
    if (notify) this.onFallback();
    this.carryLater(REDIS_RETRY_AFTER_MS);
  }
  /** Carries what memory counted into Redis (one carry at a time); on a failure, memory answers again. */
  carry(): Promise<void> {
    return (this.carrying ??= this.outage
      .carry()
      .then(
        (keys) => void (keys > 0 && this.onCarried(keys)),
        () => this.trip(false),
      )
      .finally(() => (this.carrying = null)));
  }
  private carryLater(ms: number): void {
    this.retry ??= setTimeout(() => {
      this.retry = null;
      if (!this.outage.owed || this.client.status === 'end') return;
      if (this.isOpen()) return this.carryLater(this.openUntil - Date.now());
      void this.carry();
    }, ms);
    this.retry.unref();
  }
}

/**
 * One counter: Redis, or this instance's memory counter (bounded like the single-instance
 * ones, memory-counters.ts) while the breaker is open, or when Redis fails the command. What
 * memory counts is noted (OutageCounts), and carried into Redis before Redis answers again.
 */
class RedisOrMemoryCounter implements Counter {
  constructor(
    private readonly redis: RateLimiterRedis,
    private readonly memory: Counter,
    private readonly breaker: Breaker,
    /** Seconds a new entry lives, unless told otherwise. */
    private readonly duration: number,
    /** What a value set in memory keeps once carried, when Redis holds one already. */
    private readonly keeps: SetKeeps,
  ) {}
  /** `call` on Redis, or on this instance's memory while Redis fails (`noted` then notes it). */
  private either<T>(call: (counter: Counter) => Eventually<T>, noted?: (redisKey: string) => void, key = ''): Eventually<T> {
    const inMemory = () => {
      noted?.(this.redis.getKey(key));
      return call(this.memory);
    };
    if (this.breaker.isOpen()) return inMemory();
    // Nothing is asked of Redis before what memory counted is in it.
    if (this.breaker.outage.owed) return this.breaker.carry().then(() => this.either(call, noted, key));
    return Promise.resolve(call(this.redis)).catch((error: unknown) => {
      // rate-limiter-flexible rejects with an Error when Redis fails (its points are never exceeded).
      if (!(error instanceof Error)) throw error;
      // The commands of one request fail together: the breaker trips once for them.
      if (!this.breaker.isOpen()) this.breaker.trip();
      return inMemory();
    });
  }
  get(key: string) {
    return this.either((counter) => counter.get(key));
  }
  consume(key: string, points = 1, options?: { customDuration?: number }) {
    const seconds = options?.customDuration ?? this.duration;
    const noted = (redisKey: string) => this.breaker.outage.added(redisKey, isApiKey(key), points, seconds);
    return this.either((counter) => counter.consume(key, points, options), noted, key);
  }
  set(key: string, points: number, secDuration: number) {
    const noted = (redisKey: string) => this.breaker.outage.wasSet(redisKey, isApiKey(key), points, secDuration, this.keeps);
    return this.either((counter) => counter.set(key, points, secDuration), noted, key);
  }
  delete(key: string) {
    return this.either(
      (counter) => counter.delete(key),
      (redisKey) => this.breaker.outage.deleted(redisKey),
      key,
    );
  }
}

/** An API key's window (its entries are kept whatever their number, as memory-counters.ts keeps them). */
const isApiKey = (key: string) => key.startsWith('key:');

/**
 * Counters in Redis, shared by every instance: limits and bans hold across them. When Redis
 * fails a command (down, slow beyond the timeout), this instance counts in its own memory
 * instead (memoryCounters, at most `maxEntries` windows of client addresses per counter), and
 * `onFallback` is told; for REDIS_RETRY_AFTER_MS after that the memory answers without asking
 * Redis; then what memory counted for windows still open (bans too) is added to Redis, and
 * `onCarried` told how many keys; then Redis is used again.
 */
export function redisCounters(
  client: Redis,
  prefix: string,
  onFallback: () => void,
  maxEntries = MEMORY_COUNTER_MAX_ENTRIES,
  onCarried: (keys: number) => void = () => {},
): LimitCounters {
  const breaker = new Breaker(client, new OutageCounts(client, prefix, maxEntries), onFallback, onCarried);
  const memory = memoryCounters(maxEntries);
  return buildCounters((name, options) => {
    const redis = new RateLimiterRedis({ storeClient: client, keyPrefix: `${prefix}:${name}`, rejectIfRedisNotReady: true, ...options });
    // A refusal's value set is the time of a sender's first refusal: the earliest one holds. A
    // ban's is its end, and a key found valid's is 1: the larger one holds.
    const keeps: SetKeeps = name === 'refusals' ? 'smaller' : 'larger';
    return new RedisOrMemoryCounter(redis, memory[name], breaker, options.duration, keeps);
  });
}
