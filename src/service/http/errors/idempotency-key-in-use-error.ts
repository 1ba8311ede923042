import { ApiError } from './api-error.js';

/** 409: a request with the same Idempotency-Key is still being processed; its claim lapses in `retryAfterSeconds` unless renewed. */
export class IdempotencyKeyInUseError extends ApiError {
  constructor(retryAfterSeconds: number) {
    super(409, 'idempotency_key_in_use', 'A request with this Idempotency-Key is still being processed; retry later.', undefined, {
      'Retry-After': String(Math.max(1, retryAfterSeconds)),
    });
  }
}
