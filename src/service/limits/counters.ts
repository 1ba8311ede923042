/** A value now (AddressCounter) or later (rate-limiter-flexible's limiters). */
export type Eventually<T> = T | Promise<T>;

/** What the limiter reads of a counter. */
export interface CounterValue {
  consumedPoints: number;
}

/**
 * One named counter per key, expiring: the part of rate-limiter-flexible's limiters the limiter
 * uses, which AddressCounter (address-counter.ts) answers without a promise.
 */
export interface Counter {
  get(key: string): Eventually<CounterValue | null>;
  /** Adds `points` (default 1); a new key lives `customDuration` seconds, or the counter's duration. */
  consume(key: string, points?: number, options?: { customDuration?: number }): Eventually<CounterValue>;
  set(key: string, points: number, secDuration: number): Eventually<unknown>;
  delete(key: string): Eventually<unknown>;
}

/**
 * The counters behind the limiter: one implementation per backend (memory-counters.ts for one
 * instance, redis-counters.ts for several). Their own expiry only collects garbage; windows are fixed and named by the
 * injected clock, so every instance agrees on them.
 */
export interface LimitCounters {
  /** Requests per subject and minute window. */
  minute: Counter;
  /** Requests per subject and day window, counted only when the minute window allowed them. */
  day: Counter;
  /** Refused requests per subject and window. */
  refusals: Counter;
  /** Active bans; the stored points are the ban's end, in Unix seconds. */
  bans: Counter;
  /** API keys found valid, by hash, for VALID_KEY_SECONDS after they were last noted (see BannedAddresses). */
  validKeys: Counter;
}

/** How long a key found valid is remembered as such after it was last noted: a week. */
export const VALID_KEY_SECONDS = 7 * 86_400;

/**
 * Each counter's name and how long (seconds) its entries live, for every backend. The counters
 * never refuse by themselves (unlimited points): the caller's plan is compared in
 * RateLimiter.check.
 */
const COUNTERS: Record<keyof LimitCounters, { points: number; duration: number }> = {
  minute: { points: Number.MAX_SAFE_INTEGER, duration: 60 },
  day: { points: Number.MAX_SAFE_INTEGER, duration: 86_400 },
  refusals: { points: Number.MAX_SAFE_INTEGER, duration: 86_400 },
  bans: { points: Number.MAX_SAFE_INTEGER, duration: 86_400 },
  validKeys: { points: Number.MAX_SAFE_INTEGER, duration: VALID_KEY_SECONDS },
};

/** Builds one counter per entry of COUNTERS. */
export function buildCounters(make: (name: keyof LimitCounters, options: { points: number; duration: number }) => Counter): LimitCounters {
  return {
    minute: make('minute', COUNTERS.minute),
    day: make('day', COUNTERS.day),
    refusals: make('refusals', COUNTERS.refusals),
    bans: make('bans', COUNTERS.bans),
    validKeys: make('validKeys', COUNTERS.validKeys),
  };
}
