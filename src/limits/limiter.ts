import { RateLimiterMemory, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Clock } from '../clock.js';
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

/**
 * The counters behind the limiter, as rate-limiter-flexible limiters: one implementation per
 * backend (memory here, Redis for several instances). Their own expiry only collects garbage;
 * windows are fixed and named by the injected clock, so every instance agrees on them.
 */
export interface LimitCounters {
  /** Requests per subject and minute window. */
  minute: RateLimiterAbstract;
  /** Requests per subject and day window, counted only when the minute window allowed them. */
  day: RateLimiterAbstract;
  /** Refused requests per subject and window. */
  refusals: RateLimiterAbstract;
  /** Active bans; the stored points are the ban's end, in Unix seconds. */
  bans: RateLimiterAbstract;
}

/** When a subject that keeps sending while refused is banned, and for how long. */
export interface BanPolicy {
  /** Refusals within one window after which the subject is banned. */
  banAfterRefusals: number;
  banSeconds: number;
}

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
export function buildCounters(make: (name: keyof LimitCounters, options: { points: number; duration: number }) => RateLimiterAbstract): LimitCounters {
  return {
    minute: make('minute', COUNTERS.minute),
    day: make('day', COUNTERS.day),
    refusals: make('refusals', COUNTERS.refusals),
    bans: make('bans', COUNTERS.bans),
  };
}

/** In-memory counters, for one instance. */
export function memoryCounters(): LimitCounters {
  return buildCounters((name, options) => new RateLimiterMemory({ keyPrefix: name, ...options }));
}

const WINDOWS = { minute: 60, day: 86_400 } as const;

/**
 * Per-subject limits over a minute and a day window, with temporary bans for subjects that keep
 * sending while refused. A subject that waits `Retry-After` after a refusal finds a fresh window
 * and is never refused twice in one window, so it is never banned.
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
    const [ban, minute] = await Promise.all([
      this.counters.bans.get(subject),
      this.counters.minute.consume(`${subject}:${minuteIndex}`),
    ]);
    if (ban && ban.consumedPoints > nowSec) {
      return { outcome: 'banned', window: 'ban', limit: limits.perMinute, remaining: 0, resetAt: ban.consumedPoints, retryAfter: ban.consumedPoints - nowSec };
    }

    const minuteState = { window: 'minute' as const, limit: limits.perMinute, used: minute.consumedPoints, resetAt: (minuteIndex + 1) * WINDOWS.minute };
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
      return { outcome: 'banned', window: 'ban', limit: limits.perMinute, remaining: 0, resetAt: ban.consumedPoints, retryAfter: ban.consumedPoints - nowSec };
    }
    const minuteLeft = Math.max(0, limits.perMinute - (minute?.consumedPoints ?? 0));
    const dayLeft = Math.max(0, limits.perDay - (day?.consumedPoints ?? 0));
    const closest = dayLeft < minuteLeft
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
    // The first refusal of the window is remembered (its time, in Unix milliseconds) and not
    // counted, nor are those of the grace after it.
    const first = await this.counters.refusals.get(`${key}:first-ms`);
    if (!first) {
      await this.counters.refusals.set(`${key}:first-ms`, nowMs, ttl);
      return refused;
    }
    if (nowMs - first.consumedPoints < REFUSAL_GRACE_SECONDS * 1000) return refused;
    const refusals = await this.counters.refusals.consume(key, 1, { customDuration: ttl });
    if (refusals.consumedPoints > this.policy.banAfterRefusals) {
      const until = nowSec + this.policy.banSeconds;
      await this.counters.bans.set(subject, until, this.policy.banSeconds);
      // The count starts again after the ban: a client that then waits as told is not banned anew.
      await this.counters.refusals.delete(key);
      return { outcome: 'banned', window: 'ban', limit: state.limit, remaining: 0, resetAt: until, retryAfter: this.policy.banSeconds };
    }
    return refused;
  }
}
