/**
 * Waiting at start for a dependency (PostgreSQL, Redis) that is not up yet, as happens when
 * containers start together: tried again with exponential backoff until a deadline, then given
 * up with a one-line reason.
 */

/** A dependency that did not come up in time, or refused for good: the one line to print. */
export class StartupError extends Error {
  override name = 'StartupError';
}

/** Errors no wait can fix (a wrong password, a database that does not exist): not retried. */
const FATAL_CODES = new Set(['28P01', '28000', '3D000', '42501']);

/** First wait between attempts, and the longest, in milliseconds. */
const RETRY_FIRST_MS = 250;
const RETRY_MAX_MS = 5_000;

/**
 * Runs `attempt` until it succeeds or `timeoutMs` has passed (0: once), waiting 250 ms, 500 ms,
 * … at most 5 s between attempts and telling `onRetry` each time. Throws a StartupError naming
 * `what` and the last reason; a StartupError from `attempt` (a refusal for good) ends it at once.
 */
export async function retryAtStart<T>(
  what: string,
  attempt: () => Promise<T>,
  timeoutMs: number,
  onRetry: (reason: string, waitMs: number) => void,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (let wait = RETRY_FIRST_MS; ; wait = Math.min(wait * 2, RETRY_MAX_MS)) {
    try {
      return await attempt();
    } catch (error) {
      if (error instanceof StartupError) throw error;
      const reason = error instanceof Error ? error.message.split('\n')[0]! : String(error);
      // The store wraps the driver's error (StoreUnavailableError): its code may be on the cause.
      const code = (error as { code?: unknown }).code ?? (error as { cause?: { code?: unknown } }).cause?.code;
      if (typeof code === 'string' && FATAL_CODES.has(code)) throw new StartupError(`${what} refused the connection: ${reason}`);
      const left = deadline - Date.now();
      if (left <= 0) {
        const within =
          timeoutMs === 0 ? 'at the first try (STARTUP_TIMEOUT_MS=0)' : `within ${Math.round(timeoutMs / 1000)} s (STARTUP_TIMEOUT_MS)`;
        throw new StartupError(`${what} did not answer ${within}: ${reason || 'no reason given'}`);
      }
      const next = Math.min(wait, left);
      onRetry(reason, next);
      await new Promise((resolve) => setTimeout(resolve, next));
    }
  }
}
