import { ApiError } from './api-error.js';

/**
 * What a developer must do about an operation that has no handler yet: for the log and the
 * tests, never for clients (it names a source file).
 */
export function notImplementedHint(operationId: string): string {
  return `${operationId} is not implemented: write src/service/http/handlers/${operationId}.ts (see generated/handlers.ts)`;
}

/** 501: the contract describes the operation, but no handler implements it yet. */
export class NotImplementedError extends ApiError {
  /** {@link notImplementedHint}: what the log says, where the body says less. */
  readonly hint: string;

  constructor(operationId: string) {
    super(501, 'not_implemented', `Operation ${operationId} is described by the contract but not implemented yet.`);
    this.hint = notImplementedHint(operationId);
  }
}
