import type { Clock } from '../clock.js';
import { AddressCounter } from './address-counter.js';
import type { Limits } from './plans.js';

/** What the limiter decided for one request, with what the rate-limit headers report. */
export interface LimitDecision {
  outcome: 'allowed' | 'rate_limited' | 'banned';
  /** The window reported: the one closest to running out, or the one that refused. */
  window: 'minute' | 'day' | 'ban';
  limit: number;
  remaining: number;
  /** Unix time, in seconds, at which that window resets (or the ban ends). */
  resetAt: number;
  /** Seconds to wait, on a refusal; null when allowed. */
  retryAfter: number | null;
}

/** A value now (the memory counters) or later (Redis). */
type Eventually<T> = T | Promise<T>;

/** What the limiter reads of a counter. */
export interface CounterValue {
  consumedPoints: number;
}

/**
 * One named counter per key, expiring: the part of rate-limiter-flexible's limiters the limiter
 * uses, which its Redis limiters have, and {@link MemoryCounter} answers without a promise.
 */
export interface Counter {
  get(key: string): Eventually<CounterValue | null>;
  /** Adds `points` (default 1); a new key lives `customDuration` seconds, or the counter's duration. */
  consume(key: string, points?: number, options?: { customDuration?: number }): Eventually<CounterValue>;
  set(key: string, points: number, secDuration: number): Eventually<unknown>;
  delete(key: string): Eventually<unknown>;
}

/**
 * The counters behind the limiter: one implementation per backend (memory here, Redis for
 * several instances). Their own expiry only collects garbage; windows are fixed and named by the
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
}

/** When a subject that keeps sending while refused is banned, and for how long. */
export interface BanPolicy {
  /**
   * Refusals within one window, past the grace and past those excused as clients coming back
   * (see {@link RETURNING_CLIENTS_MAX}), after which the subject is banned.
   */
  banAfterRefusals: number;
  banSeconds: number;
}

/**
 * At most this many refusals of a window are excused as clients coming back after the previous
 * window's `Retry-After`. Clients that honour `Retry-After` are each refused at most once a
 * window, so a window refuses no more of them than the previous window refused in all; a
 * subject's excuse is that number, up to this cap, so a client cannot earn an ever larger one
 * by being refused in bursts.
 */
export const RETURNING_CLIENTS_MAX = 1_000;

/**
 * Refusals within this many seconds of a window's first refusal do not count towards a ban:
 * they are requests that were already on their way when the client was first told to wait.
 * Measured in milliseconds, so the grace is never shorter than this.
 */
export const REFUSAL_GRACE_SECONDS = 2;

/**
 * Each counter's name and how long (seconds) its entries live, for every backend. The counters
 * never refuse by themselves (unlimited points): the caller's plan is compared in
 * RateLimiter.check.
 */
export const COUNTERS: Record<keyof LimitCounters, { points: number; duration: number }> = {
  minute: { points: Number.MAX_SAFE_INTEGER, duration: 60 },
  day: { points: Number.MAX_SAFE_INTEGER, duration: 86_400 },
  refusals: { points: Number.MAX_SAFE_INTEGER, duration: 86_400 },
  bans: { points: Number.MAX_SAFE_INTEGER, duration: 86_400 },
};

/** Builds one counter per entry of COUNTERS. */
export function buildCounters(make: (name: keyof LimitCounters, options: { points: number; duration: number }) => Counter): LimitCounters {
  return {
    minute: make('minute', COUNTERS.minute),
    day: make('day', COUNTERS.day),
    refusals: make('refusals', COUNTERS.refusals),
    bans: make('bans', COUNTERS.bans),
  };
}

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

const isPromise = <T>(value: Eventually<T>): value is Promise<T> => value instanceof Promise;

const WINDOWS = { minute: 60, day: 86_400 } as const;

/**
 * Per-subject limits over a minute and a day window, with temporary bans for subjects that keep
 * sending while refused. A client that waits `Retry-After` after a refusal finds a fresh window
 * and is never refused twice in one window. Many clients may share a subject (workers sharing a
 * key, users behind one address), each refused once, at moments spread by their jitter: a
 * window's refusals are counted towards a ban only past the grace after its first refusal, and
 * only beyond those of clients coming back from the previous window (as many as it refused in
 * all, at most RETURNING_CLIENTS_MAX). A subject is banned when more than `banAfterRefusals`
 * are left: a client sending on while refused, not a crowd coming back.
 */
export class RateLimiter {
  constructor(
    private readonly counters: LimitCounters,
    private readonly clock: Clock,
    private readonly policy: BanPolicy,
  ) {}

  /** Counts one request of `subject` (a key id or a client address) and decides on it. */
  async check(subject: string, limits: Limits): Promise<LimitDecision> {
    const nowMs = this.clock.now();
    const nowSec = Math.floor(nowMs / 1000);

    const minuteIndex = Math.floor(nowSec / WINDOWS.minute);
    // Asked together: with a slow Redis a request waits for one command timeout, not two.
    const banLookup = this.counters.bans.get(subject);
    const minuteCount = this.counters.minute.consume(`${subject}:${minuteIndex}`);
    const [ban, minute] =
      isPromise(banLookup) || isPromise(minuteCount) ? await Promise.all([banLookup, minuteCount]) : [banLookup, minuteCount];
    if (ban && ban.consumedPoints > nowSec) {
      return {
        outcome: 'banned',
        window: 'ban',
        limit: limits.perMinute,
        remaining: 0,
        resetAt: ban.consumedPoints,
        retryAfter: ban.consumedPoints - nowSec,
      };
    }

    const minuteState = {
      window: 'minute' as const,
      limit: limits.perMinute,
      used: minute.consumedPoints,
      resetAt: (minuteIndex + 1) * WINDOWS.minute,
    };
    if (minuteState.used > minuteState.limit) return this.refuse(subject, minuteState, nowMs, minuteIndex);

    const dayIndex = Math.floor(nowSec / WINDOWS.day);
    const day = await this.counters.day.consume(`${subject}:${dayIndex}`);
    const dayState = { window: 'day' as const, limit: limits.perDay, used: day.consumedPoints, resetAt: (dayIndex + 1) * WINDOWS.day };
    if (dayState.used > dayState.limit) return this.refuse(subject, dayState, nowMs, dayIndex);

    const minuteLeft = minuteState.limit - minuteState.used;
    const dayLeft = dayState.limit - dayState.used;
    const closest = dayLeft < minuteLeft ? dayState : minuteState;
    return {
      outcome: 'allowed',
      window: closest.window,
      limit: closest.limit,
      remaining: Math.min(minuteLeft, dayLeft),
      resetAt: closest.resetAt,
      retryAfter: null,
    };
  }

  /**
   * What {@link check} would report for `subject` now, without counting a request: for answers
   * to requests that were never read (Node refused their headers), so nothing can be counted
   * against the right subject.
   */
  async peek(subject: string, limits: Limits): Promise<LimitDecision> {
    const nowSec = Math.floor(this.clock.now() / 1000);
    const minuteIndex = Math.floor(nowSec / WINDOWS.minute);
    const dayIndex = Math.floor(nowSec / WINDOWS.day);
    const [ban, minute, day] = await Promise.all([
      this.counters.bans.get(subject),
      this.counters.minute.get(`${subject}:${minuteIndex}`),
      this.counters.day.get(`${subject}:${dayIndex}`),
    ]);
    if (ban && ban.consumedPoints > nowSec) {
      return {
        outcome: 'banned',
        window: 'ban',
        limit: limits.perMinute,
        remaining: 0,
        resetAt: ban.consumedPoints,
        retryAfter: ban.consumedPoints - nowSec,
      };
    }
    const minuteLeft = Math.max(0, limits.perMinute - (minute?.consumedPoints ?? 0));
    const dayLeft = Math.max(0, limits.perDay - (day?.consumedPoints ?? 0));
    const closest =
      dayLeft < minuteLeft
        ? { window: 'day' as const, limit: limits.perDay, resetAt: (dayIndex + 1) * WINDOWS.day }
        : { window: 'minute' as const, limit: limits.perMinute, resetAt: (minuteIndex + 1) * WINDOWS.minute };
    const remaining = Math.min(minuteLeft, dayLeft);
    return {
      outcome: remaining > 0 ? 'allowed' : 'rate_limited',
      ...closest,
      remaining,
      retryAfter: remaining > 0 ? null : Math.max(1, closest.resetAt - nowSec),
    };
  }

  private async refuse(
    subject: string,
    state: { window: 'minute' | 'day'; limit: number; resetAt: number },
    nowMs: number,
    windowIndex: number,
  ): Promise<LimitDecision> {
    const nowSec = Math.floor(nowMs / 1000);
    const refused = {
      outcome: 'rate_limited' as const,
      window: state.window,
      limit: state.limit,
      remaining: 0,
      resetAt: state.resetAt,
      retryAfter: Math.max(1, state.resetAt - nowSec),
    };
    const key = `${subject}:${state.window}:${windowIndex}`;
    const ttl = Math.max(1, state.resetAt - nowSec);
    // Every refusal of the window is counted under :all, kept through the next window: how many
    // clients that next window may see coming back.
    const all = this.counters.refusals.consume(`${key}:all`, 1, { customDuration: ttl + WINDOWS[state.window] });
    // The first refusal of the window is remembered (its time, in Unix milliseconds) and not
    // counted, nor are those of the grace after it: requests already on their way.
    const first = await this.counters.refusals.get(`${key}:first-ms`);
    await all;
    if (!first) {
      await this.counters.refusals.set(`${key}:first-ms`, nowMs, ttl);
      return refused;
    }
    if (nowMs - first.consumedPoints < REFUSAL_GRACE_SECONDS * 1000) return refused;
    const [refusals, before] = await Promise.all([
      this.counters.refusals.consume(key, 1, { customDuration: ttl }),
      this.counters.refusals.get(`${subject}:${state.window}:${windowIndex - 1}:all`),
    ]);
    // Clients refused in the previous window come back in this one, each once, at a moment of
    // their choosing (Retry-After plus jitter): as many refusals as they were are excused.
    const returning = Math.min(before?.consumedPoints ?? 0, RETURNING_CLIENTS_MAX);
    if (refusals.consumedPoints > this.policy.banAfterRefusals + returning) {
      const until = nowSec + this.policy.banSeconds;
      await this.counters.bans.set(subject, until, this.policy.banSeconds);
      // The count starts again after the ban: a client that then waits as told is not banned
      // anew, and what it was refused while ignoring Retry-After excuses nothing later.
      await Promise.all([this.counters.refusals.delete(key), this.counters.refusals.delete(`${key}:all`)]);
      return { outcome: 'banned', window: 'ban', limit: state.limit, remaining: 0, resetAt: until, retryAfter: this.policy.banSeconds };
    }
    return refused;
  }
}
