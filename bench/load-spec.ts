/** One load run against one URL. */
export interface LoadSpec {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  connections: number;
  durationSeconds: number;
  /** Paths (with query) to take in turn, one per request, instead of the URL's. */
  paths?: string[];
}

/** What one load run measured. */
export interface LoadResult {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  /** Responses that were not 2xx, connection errors and timeouts: any of them spoils the run. */
  non2xx: number;
  errors: number;
}

/** The load generators the bench can drive. */
export type Generator = 'wrk' | 'autocannon';
