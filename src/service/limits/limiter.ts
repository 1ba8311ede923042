import type { Clock } from '../clock.js';
import type { Counter, Eventually, LimitCounters } from './counters.js';
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

/** When a sender that keeps sending while told to wait gets its subject banned, and for how long. */
export interface BanPolicy {
  /**
   * Refusals of one sender within one window, past the grace and past those excused as clients
   * coming back (see {@link RETURNING_CLIENTS_MAX}), after which the subject is banned.
   */
  banAfterRefusals: number;
  banSeconds: number;
}

/**
 * At most this many refusals of a sender in a window are excused as clients behind its address
 * coming back after the previous window's `Retry-After`. Clients that honour `Retry-After` are
 * each refused at most once a window, so a window refuses no more of them than the previous
 * window refused in all; a sender's excuse is that number, up to this cap, so a client cannot
 * earn an ever larger one by being refused in bursts.
 */
const RETURNING_CLIENTS_MAX = 1_000;

/**
 * Refusals within this many seconds of a sender's first refusal in a window do not count
 * towards a ban: they are requests that were already on their way when it was first told to
 * wait. Measured in milliseconds, so the grace is never shorter than this.
 */
const REFUSAL_GRACE_SECONDS = 2;

const isPromise = <T>(value: Eventually<T>): value is Promise<T> => value instanceof Promise;

const WINDOWS = { minute: 60, day: 86_400 } as const;

/** The decision on a subject banned until `until` (Unix seconds), reporting `limit`. */
function bannedUntil(until: number, nowSec: number, limit: number): LimitDecision {
  return { outcome: 'banned', window: 'ban', limit, remaining: 0, resetAt: until, retryAfter: until - nowSec };
}

/**
 * Per-subject limits over a minute and a day window, with temporary bans for subjects whose
 * senders keep sending while told to wait. A refusal says to wait until the window's end
 * (`Retry-After`), so a sender that honours it is refused at most once a window; many may share a
 * subject (workers sharing a key, clients arriving one after another), each refused once. So
 * refusals are counted per sender (a subject from one client address): a sender's first refusal
 * in a window never counts, nor do those of the grace after it (requests already on their way),
 * nor, beyond that, as many as the same sender was refused in all in the previous window (several
 * clients behind one address coming back, at most RETURNING_CLIENTS_MAX). The subject is banned
 * when a sender has more than `banAfterRefusals` left: it sends on while told to wait.
 */
export class RateLimiter {
  constructor(
    private readonly counters: LimitCounters,
    private readonly clock: Clock,
    private readonly policy: BanPolicy,
  ) {}

  /** The keys found valid, kept with the limiter's counters (in Redis, shared): see BannedAddresses. */
  get validKeys(): Counter {
    return this.counters.validKeys;
  }

  /**
   * Counts one request of `subject` (a key id or a client address) and decides on it; `sender`
   * is the client address the request came from (the subject itself, for an address).
   */
  async check(subject: string, limits: Limits, sender: string): Promise<LimitDecision> {
    const nowMs = this.clock.now();
    const nowSec = Math.floor(nowMs / 1000);

    const minuteIndex = Math.floor(nowSec / WINDOWS.minute);
    // Asked together: with a slow Redis a request waits for one command timeout, not two.
    const banLookup = this.counters.bans.get(subject);
    const minuteCount = this.counters.minute.consume(`${subject}:${minuteIndex}`);
    const [ban, minute] =
      isPromise(banLookup) || isPromise(minuteCount) ? await Promise.all([banLookup, minuteCount]) : [banLookup, minuteCount];
    if (ban && ban.consumedPoints > nowSec) return bannedUntil(ban.consumedPoints, nowSec, limits.perMinute);

    const minuteState = {
      window: 'minute' as const,
      limit: limits.perMinute,
      used: minute.consumedPoints,
      resetAt: (minuteIndex + 1) * WINDOWS.minute,
    };
    if (minuteState.used > minuteState.limit) return this.refuse(subject, sender, minuteState, nowMs, minuteIndex);

    const dayIndex = Math.floor(nowSec / WINDOWS.day);
    const day = await this.counters.day.consume(`${subject}:${dayIndex}`);
    const dayState = { window: 'day' as const, limit: limits.perDay, used: day.consumedPoints, resetAt: (dayIndex + 1) * WINDOWS.day };
    if (dayState.used > dayState.limit) return this.refuse(subject, sender, dayState, nowMs, dayIndex);

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
    if (ban && ban.consumedPoints > nowSec) return bannedUntil(ban.consumedPoints, nowSec, limits.perMinute);
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
    sender: string,
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
    // Counted per sender: under the address (never `key:`), so that the memory counters keep
    // them in their bounded table of addresses, however many addresses send one key.
    const senderOf = sender === subject ? subject : `${sender}|${subject}`;
    const key = `${senderOf}:${state.window}:${windowIndex}`;
    const ttl = Math.max(1, state.resetAt - nowSec);
    // Every refusal of the sender in the window is counted under :all, kept through the next
    // window: how many of its clients that next window may see coming back.
    const all = this.counters.refusals.consume(`${key}:all`, 1, { customDuration: ttl + WINDOWS[state.window] });
    // The sender's first refusal of the window is remembered (its time, in Unix milliseconds)
    // and not counted, nor are those of the grace after it: requests already on their way.
    const first = await this.counters.refusals.get(`${key}:first-ms`);
    await all;
    if (!first) {
      await this.counters.refusals.set(`${key}:first-ms`, nowMs, ttl);
      return refused;
    }
    if (nowMs - first.consumedPoints < REFUSAL_GRACE_SECONDS * 1000) return refused;
    const [refusals, before] = await Promise.all([
      this.counters.refusals.consume(key, 1, { customDuration: ttl }),
      this.counters.refusals.get(`${senderOf}:${state.window}:${windowIndex - 1}:all`),
    ]);
    // Clients behind the sender's address refused in the previous window come back in this one,
    // each once, at a moment of their choosing (Retry-After plus jitter): as many refusals as
    // they were are excused.
    const returning = Math.min(before?.consumedPoints ?? 0, RETURNING_CLIENTS_MAX);
    if (refusals.consumedPoints > this.policy.banAfterRefusals + returning) {
      const until = nowSec + this.policy.banSeconds;
      await this.counters.bans.set(subject, until, this.policy.banSeconds);
      // The count starts again after the ban: a client that then waits as told is not banned
      // anew, and what it was refused while ignoring Retry-After excuses nothing later.
      await Promise.all([this.counters.refusals.delete(key), this.counters.refusals.delete(`${key}:all`)]);
      return bannedUntil(until, nowSec, state.limit);
    }
    return refused;
  }
}
