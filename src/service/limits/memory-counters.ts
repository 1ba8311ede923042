import { RateLimiterMemory } from 'rate-limiter-flexible';
import { AddressCounter } from './address-counter.js';
import { buildCounters, type Counter, type LimitCounters } from './counters.js';

/** Entries each memory counter keeps at most, by default (see LIMITER_MAX_ENTRIES). */
export const MEMORY_COUNTER_MAX_ENTRIES = 50_000;

/**
 * API keys' windows apart from everyone else's: their number is that of issued keys, so they are
 * kept in rate-limiter-flexible's RateLimiterMemory (an entry and a timer per key until it
 * expires) and never evicted (a flood of addresses must not reset a key's day), while the
 * windows of client addresses and of the keyless endpoints are capped (AddressCounter).
 */
class SubjectsApart implements Counter {
  constructor(
    private readonly keys: Counter,
    private readonly others: AddressCounter,
  ) {}
  private of(key: string): Counter {
    return key.startsWith('key:') ? this.keys : this.others;
  }
  get(key: string) {
    return this.of(key).get(key);
  }
  consume(key: string, points?: number, options?: { customDuration?: number }) {
    return this.of(key).consume(key, points, options);
  }
  set(key: string, points: number, secDuration: number) {
    return this.of(key).set(key, points, secDuration);
  }
  delete(key: string) {
    return this.of(key).delete(key);
  }
}

/**
 * In-memory counters, for one instance (and for the Redis counters while Redis fails): each
 * keeps every API key's windows, and at most `maxEntries` (rounded up to a power of two) windows
 * of client addresses, in a table allocated once (AddressCounter). The keys found valid are
 * as many as the keys issued: RateLimiterMemory keeps them all.
 */
export function memoryCounters(maxEntries = MEMORY_COUNTER_MAX_ENTRIES): LimitCounters {
  return buildCounters((name, options) => {
    const keys = new RateLimiterMemory({ keyPrefix: name, ...options });
    return name === 'validKeys' ? keys : new SubjectsApart(keys, new AddressCounter(options.duration, maxEntries));
  });
}
