import { ApiError } from './api-error.js';

/** 429: the caller's limit is used up until `retryAfter` seconds from now. */
export class RateLimitedError extends ApiError {
  constructor(window: 'minute' | 'day', limit: number, retryAfter: number) {
    super(429, 'rate_limited', `Rate limit of ${limit} requests per ${window} exceeded; retry after ${retryAfter} seconds.`, undefined, {
      'Retry-After': String(retryAfter),
    });
  }
}
