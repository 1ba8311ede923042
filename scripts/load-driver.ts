/** One API key driven at a multiple of its limit, and what it got back (used by scripts/load.ts). */
import type { Limits, Plan } from '../src/service/limits/plans.js';

/** How a driven key behaves when refused. */
export type Manner = 'ignores-retry-after' | 'honours-retry-after';

/** What one key sent and got. */
export interface Tally {
  plan: Plan;
  manner: Manner;
  limits: Limits;
  sent: number;
  /** Answers that passed the limiter: anything but 429 and 5xx (2xx, and 4xx about the request itself). */
  accepted: number;
  rateLimited: number;
  banned: number;
  serverErrors: number;
  /** Requests that got no HTTP answer (connection refused or reset). */
  networkErrors: number;
  firstSentAt: number;
  lastAnsweredAt: number;
}

/**
 * At most this many requests of one key wait for their answer; the schedule is kept otherwise.
 * A client that honours Retry-After sends one at a time (as the typed client does), so it
 * never has requests on their way when it is told to wait.
 */
const MAX_IN_FLIGHT: Record<Manner, number> = { 'ignores-retry-after': 64, 'honours-retry-after': 1 };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

/** The next request of a key: mostly lists, some creations and fetches, like an application would. */
function nextRequest(baseUrl: string, key: string, i: number): [string, RequestInit] {
  const headers = { Authorization: `Bearer ${key}` };
  if (i % 10 < 2) {
    const body = JSON.stringify({ name: `Load ${i}`, categoryId: (i % 7) + 1 });
    return [`${baseUrl}/pets`, { method: 'POST', headers: { ...headers, 'Content-Type': 'application/json' }, body }];
  }
  if (i % 10 === 2) return [`${baseUrl}/pets/${(i % 50) + 1}`, { headers }];
  return [`${baseUrl}/pets?limit=20`, { headers }];
}

/** A tally of nothing yet. */
function emptyTally(plan: Plan, manner: Manner, limits: Limits): Tally {
  const now = Date.now();
  return {
    plan,
    manner,
    limits,
    sent: 0,
    accepted: 0,
    rateLimited: 0,
    banned: 0,
    serverErrors: 0,
    networkErrors: 0,
    firstSentAt: now,
    lastAnsweredAt: now,
  };
}

/** Counts one answer into `tally`; for a 429, returns the milliseconds its Retry-After asks to wait, else 0. */
function countAnswer(tally: Tally, status: number, text: string, retryAfter: string | null): number {
  if (status >= 500) {
    tally.serverErrors++;
    return 0;
  }
  if (status !== 429) {
    tally.accepted++;
    return 0;
  }
  // A refusal whatever its body; a body that is not JSON counts as a rate limit, not a ban.
  let code: string | undefined;
  try {
    code = (JSON.parse(text) as { code?: string }).code;
  } catch {
    code = undefined;
  }
  if (code === 'key_temporarily_banned') tally.banned++;
  else tally.rateLimited++;
  return Number(retryAfter ?? 1) * 1000;
}

/** What {@link driveKey} drives, and how hard. */
export interface DriveOptions {
  baseUrl: string;
  key: string;
  plan: Plan;
  manner: Manner;
  limits: Limits;
  /** Send at this many times the key's per-minute limit. */
  rate: number;
  /** Send nothing at or after this time (epoch milliseconds). */
  endAt: number;
}

/**
 * Sends requests with `key` at `rate` times its per-minute limit, spread evenly, until
 * `endAt`. A key that ignores Retry-After keeps to the schedule when refused (and gets banned);
 * one that honours it sends nothing more until Retry-After has passed. The tally fills as
 * answers come; `done` resolves once the last one has.
 */
export function driveKey(options: DriveOptions): { tally: Tally; done: Promise<void> } {
  const { baseUrl, key, manner, limits, rate, endAt } = options;
  const tally = emptyTally(options.plan, manner, limits);
  const intervalMs = 60_000 / (limits.perMinute * rate);
  const inFlight = new Set<Promise<void>>();
  let pausedUntil = 0;
  const start = Date.now();
  const sendOne = (i: number) => {
    const [url, init] = nextRequest(baseUrl, key, i);
    tally.sent++;
    const request: Promise<void> = fetch(url, init)
      .then(async (response) => {
        const waitMs = countAnswer(tally, response.status, await response.text(), response.headers.get('Retry-After'));
        if (manner === 'honours-retry-after' && response.status === 429) pausedUntil = Math.max(pausedUntil, Date.now() + waitMs);
      })
      .catch(() => void tally.networkErrors++)
      .finally(() => {
        tally.lastAnsweredAt = Date.now();
        inFlight.delete(request);
      });
    inFlight.add(request);
  };
  const send = async () => {
    for (let i = 0; ; i++) {
      const due = start + i * intervalMs;
      if (due >= endAt) break;
      await sleep(due - Date.now());
      if (Date.now() < pausedUntil) continue;
      while (inFlight.size >= MAX_IN_FLIGHT[manner]) await Promise.race(inFlight);
      if (Date.now() < pausedUntil || Date.now() >= endAt) continue;
      sendOne(i);
    }
    await Promise.all(inFlight);
  };
  return { tally, done: send() };
}

/**
 * The most requests the key may have had accepted between its first request and its last
 * answer: its limit times the fixed windows (minutes ending on the minute, days at midnight
 * UTC) that span touched, the smaller of the two.
 */
export function allowedFor(tally: Tally): number {
  const windows = (ms: number) => Math.floor(tally.lastAnsweredAt / ms) - Math.floor(tally.firstSentAt / ms) + 1;
  return Math.min(tally.limits.perMinute * windows(60_000), tally.limits.perDay * windows(86_400_000));
}
