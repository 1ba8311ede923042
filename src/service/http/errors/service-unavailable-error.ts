import { ApiError } from './api-error.js';

/** 503: a dependency is unavailable; retry after `retryAfter` seconds. */
export class ServiceUnavailableError extends ApiError {
  constructor(message: string, retryAfter = 5, options?: ErrorOptions) {
    super(503, 'service_unavailable', message, undefined, { 'Retry-After': String(retryAfter) }, options);
  }
}
