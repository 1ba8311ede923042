import { ApiError } from './api-error.js';

/** 409: a request with the same Idempotency-Key is still being processed. */
export class IdempotencyKeyInUseError extends ApiError {
  constructor() {
    super(409, 'idempotency_key_in_use', 'A request with this Idempotency-Key is still being processed; retry later.', undefined, {
      'Retry-After': '1',
    });
  }
}
