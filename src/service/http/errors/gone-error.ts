import { ApiError } from './api-error.js';

/** 410: the operation was removed on its sunset date. */
export class GoneError extends ApiError {
  constructor(message: string) {
    super(410, 'gone', message);
  }
}
