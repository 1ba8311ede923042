import { ApiError } from './api-error.js';

/** 413: the request body is larger than the service accepts. */
export class PayloadTooLargeError extends ApiError {
  constructor(limitBytes: number) {
    super(413, 'payload_too_large', `The request body is larger than ${limitBytes} bytes.`);
  }
}
