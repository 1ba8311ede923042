import { AddressCounter } from './address-counter.js';
import { buildCounters, type Counter, type CounterValue, type LimitCounters } from './counters.js';

/**
 * Counters in this process's memory, answering at once (no promise, no timer): for one instance.
 * Expired entries are dropped when read, and all of them at most once a minute when a new key
 * comes, so keys of past windows do not pile up. The number of entries is capped: past
 * `maxEntries`, the oldest entry goes (a Map keeps insertion order), so memory stays bounded
 * whatever the number of distinct clients. What an evicted subject gains: its window starts
 * afresh (at most one more window's worth of requests), or, for a ban, it ends early.
 */
export class MemoryCounter implements Counter {
  private readonly entries = new Map<string, { consumedPoints: number; expiresAt: number }>();
  private nextSweep = 0;
  /** Entries dropped to stay within maxEntries, since the start. */
  evicted = 0;

  constructor(
    private readonly durationSeconds: number,
    private readonly maxEntries = Number.POSITIVE_INFINITY,
  ) {}

  private live(key: string, now: number) {
    const entry = this.entries.get(key);
    if (entry && entry.expiresAt <= now) {
      this.entries.delete(key);
      return undefined;
    }
    return entry;
  }

  private create(key: string, consumedPoints: number, seconds: number, now: number) {
    if (now >= this.nextSweep) {
      this.nextSweep = now + 60_000;
      for (const [k, e] of this.entries) if (e.expiresAt <= now) this.entries.delete(k);
    }
    // Deleted first, so a renewed entry moves to the end of the eviction order.
    this.entries.delete(key);
    while (this.entries.size >= this.maxEntries) {
      this.entries.delete(this.entries.keys().next().value!);
      this.evicted++;
    }
    const entry = { consumedPoints, expiresAt: now + seconds * 1000 };
    this.entries.set(key, entry);
    return entry;
  }

  get(key: string): CounterValue | null {
    return this.live(key, Date.now()) ?? null;
  }

  consume(key: string, points = 1, options: { customDuration?: number } = {}): CounterValue {
    const now = Date.now();
    const entry = this.live(key, now) ?? this.create(key, 0, options.customDuration ?? this.durationSeconds, now);
    entry.consumedPoints += points;
    return entry;
  }

  set(key: string, points: number, secDuration: number): void {
    this.create(key, points, secDuration, Date.now());
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  /** How many keys the counter holds now, expired ones not yet dropped included. */
  get size(): number {
    return this.entries.size;
  }
}

/** Entries each memory counter keeps at most, by default (see LIMITER_MAX_ENTRIES). */
export const MEMORY_COUNTER_MAX_ENTRIES = 50_000;

/**
 * API keys' windows apart from everyone else's: their number is that of issued keys, so they are
 * never evicted (a flood of addresses must not reset a key's day), while the windows of client
 * addresses and of the keyless endpoints are capped.
 */
class SubjectsApart implements Counter {
  constructor(
    private readonly keys: MemoryCounter,
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
 * In-memory counters, for one instance: each keeps every API key's windows, and at most
 * `maxEntries` (rounded up to a power of two) windows of client addresses, in a table allocated
 * once (AddressCounter).
 */
export function memoryCounters(maxEntries = MEMORY_COUNTER_MAX_ENTRIES): LimitCounters {
  return buildCounters(
    (_name, options) => new SubjectsApart(new MemoryCounter(options.duration), new AddressCounter(options.duration, maxEntries)),
  );
}
