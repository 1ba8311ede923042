import { ApiError } from './api-error.js';

/** 404: the animal, or the path, does not exist. */
export class NotFoundError extends ApiError {
  constructor(message: string) {
    super(404, 'not_found', message);
  }
}
