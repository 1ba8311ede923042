import type { components } from '../../../../generated/openapi.js';

export type ErrorCode = components['schemas']['ErrorCode'];
export type ErrorBody = components['schemas']['Error'];
export type ErrorDetail = components['schemas']['ErrorDetail'];

/**
 * An error the service answers with the contract's Error body. The central error handler turns
 * anything else thrown into a 500 that reveals nothing.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetail[],
    /** Headers the response must carry (Retry-After, Allow, WWW-Authenticate). */
    readonly headers: Record<string, string> = {},
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = new.target.name;
  }

  /** The Error body of the contract. */
  toBody(): ErrorBody {
    return this.details && this.details.length > 0
      ? { code: this.code, message: this.message, status: this.status, details: this.details }
      : { code: this.code, message: this.message, status: this.status };
  }
}
