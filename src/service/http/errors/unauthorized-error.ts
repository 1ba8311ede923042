import { ApiError } from './api-error.js';

/** 401: the API key is missing, malformed, unknown, revoked or for another environment. */
export class UnauthorizedError extends ApiError {
  constructor(message = 'A valid API key is required as a bearer token in the Authorization header.') {
    super(401, 'unauthorized', message, undefined, { 'WWW-Authenticate': 'Bearer realm="animal-store"' });
  }
}
