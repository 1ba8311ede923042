import { ApiError } from './api-error.js';

/** 422: the Idempotency-Key was already used with a different request body. */
export class IdempotencyKeyReusedError extends ApiError {
  constructor() {
    super(422, 'idempotency_key_reused', 'This Idempotency-Key was already used with a different request body.');
  }
}
