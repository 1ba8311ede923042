/** How the client waits and tells the time; tests pass their own. */
export interface ClientClock {
  /** Milliseconds since the Unix epoch. @default Date.now */
  now(): number;
  /** Resolves after `ms`, or rejects with the signal's reason when it is aborted first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** The real clock. */
export const realClock: ClientClock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise((resolve, reject) => {
      // Rejected with the signal's reason, whatever the caller aborted with, as fetch does.
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
      if (signal?.aborted) return reject(signal.reason);
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      const onAbort = () => {
        clearTimeout(timer);
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- as above
        reject(signal!.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
    }),
};

/** When and how often the client retries. */
export interface RetryOptions {
  /**
   * Retries after the first attempt, for 429, 503, a 409 for an Idempotency-Key in use, and
   * network errors where retrying is safe.
   * @default 5
   */
  maxRetries?: number;
  /**
   * Longest time, in milliseconds, a call may take with all its waits. A `Retry-After` that
   * would end past it is not waited for: the call returns the refusal at once.
   * @default 120000
   */
  deadlineMs?: number;
  /** First delay of the exponential backoff used when a refusal has no Retry-After, in ms. @default 250 */
  baseDelayMs?: number;
  /** Longest backoff delay, in ms. @default 30000 */
  maxDelayMs?: number;
}

/** The rate-limit headers of the last response: the window closest to running out. */
export interface RateLimitState {
  limit: number;
  remaining: number;
  /** When that window resets. */
  reset: Date;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Seconds of a `Retry-After` header (delay-seconds or an HTTP date), in ms; null when absent or unreadable. */
function retryAfterMs(header: string | null, now: number): number | null {
  if (header === null) return null;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

/**
 * A fetch that waits as the service asks and retries what is safe to retry:
 * - 429 and 503: waits `Retry-After` (or backs off exponentially with full jitter), and until
 *   that time has passed no other call of this client is sent either, so a client that uses it
 *   never sends while refused and is never banned;
 * - 409 for an Idempotency-Key still in flight: waits its `Retry-After` and sends again;
 * - network errors: retried only for GET/HEAD/OPTIONS and for requests carrying an
 *   Idempotency-Key (the service then answers a repeat with the first response).
 * An aborted signal ends any wait at once.
 */
export function retryingFetch(
  baseFetch: (request: Request) => Promise<Response>,
  options: Required<RetryOptions>,
  clock: ClientClock,
  onResponse: (response: Response) => void,
) {
  let blockedUntil = 0;
  const backoff = (attempt: number) => Math.random() * Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** attempt);

  return async (request: Request): Promise<Response> => {
    const started = clock.now();
    const template = request.clone();
    const retriableOnNetworkError = SAFE_METHODS.has(request.method) || request.headers.has('Idempotency-Key');
    for (let attempt = 0; ; attempt++) {
      const wait = blockedUntil - clock.now();
      if (wait > 0) await clock.sleep(wait, request.signal);

      let response: Response;
      try {
        response = await baseFetch(template.clone());
      } catch (error) {
        if (request.signal.aborted || !retriableOnNetworkError || attempt >= options.maxRetries) throw error;
        const delay = backoff(attempt);
        if (clock.now() + delay - started > options.deadlineMs) throw error;
        await clock.sleep(delay, request.signal);
        continue;
      }
      onResponse(response);

      const refused = response.status === 429 || response.status === 503;
      const inFlight = response.status === 409 && request.headers.has('Idempotency-Key') && response.headers.has('Retry-After');
      if (!(refused || inFlight) || attempt >= options.maxRetries) return response;
      const delay = retryAfterMs(response.headers.get('Retry-After'), clock.now()) ?? backoff(attempt);
      if (clock.now() + delay - started > options.deadlineMs) return response;
      if (response.status === 429) blockedUntil = Math.max(blockedUntil, clock.now() + delay);
      await response.body?.cancel();
      await clock.sleep(delay, request.signal);
    }
  };
}
