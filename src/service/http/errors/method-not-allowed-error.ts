import { ApiError } from './api-error.js';

/** 405: the path exists, but not with this method. @see RFC 9110, section 15.5.6 (Allow). */
export class MethodNotAllowedError extends ApiError {
  constructor(method: string, path: string, allowed: string[]) {
    super(405, 'method_not_allowed', `${path} does not support ${method}; it supports ${allowed.join(', ')}.`, undefined, {
      Allow: allowed.join(', '),
    });
  }
}
