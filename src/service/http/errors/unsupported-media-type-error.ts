import { ApiError } from './api-error.js';

/** 415: the request body is not application/json. */
export class UnsupportedMediaTypeError extends ApiError {
  constructor(message = 'The request body must be application/json.') {
    super(415, 'unsupported_media_type', message);
  }
}
