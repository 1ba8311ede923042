import { ApiError } from './api-error.js';

/** 501: the contract describes the operation, but no handler implements it yet. */
export class NotImplementedError extends ApiError {
  constructor(operationId: string) {
    super(501, 'not_implemented', `Operation ${operationId} is described by the contract but not implemented yet.`);
  }
}
