import { ApiError, type ErrorDetail } from './api-error.js';

/** 400: a parameter, header or the body is missing, malformed or out of range. */
export class InvalidRequestError extends ApiError {
  constructor(details: ErrorDetail[], message = 'The request is invalid; see details.', options?: ErrorOptions) {
    super(400, 'invalid_request', message, details, {}, options);
  }
}
