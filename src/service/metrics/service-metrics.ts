/** How a rate-limit decision went, as the metrics name it. */
export type LimitOutcome = 'allowed' | 'refused' | 'banned';

/**
 * What the service counts for operators (Prometheus, prom-client). The app and its middleware
 * report to it; {@link NO_METRICS} when metrics are off.
 */
export interface ServiceMetrics {
  /** A response was sent: its operationId (or `none` for what the contract does not have, `docs`, `health`), method, status and time. */
  request(operation: string, method: string, status: number, seconds: number): void;
  /** The rate limiter decided on a request: per plan (`anonymous` for requests without a valid key). */
  rateLimit(outcome: LimitOutcome, plan: string): void;
  /** The store failed a request (unavailable, full disk, timeout). */
  storeError(): void;
  /** A Redis command failed or timed out and the request was counted in memory instead. */
  redisFallback(): void;
  /** A POST was answered from its Idempotency-Key record instead of creating again. */
  idempotentReplay(): void;
}

/** Metrics switched off: every report is dropped. */
export const NO_METRICS: ServiceMetrics = {
  request() {},
  rateLimit() {},
  storeError() {},
  redisFallback() {},
  idempotentReplay() {},
};
