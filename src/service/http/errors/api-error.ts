import { HttpProblem } from 'contract-kit';
import type { components } from '../../../../generated/openapi.js';

export type ErrorCode = components['schemas']['ErrorCode'];
export type ErrorBody = components['schemas']['Error'];
export type ErrorDetail = components['schemas']['ErrorDetail'];

/**
 * An error the service answers with the contract's Error body: a contract-kit HttpProblem whose
 * code is one of the contract's. The kit's error step turns anything else thrown into a 500 that
 * reveals nothing (see error-body.ts).
 */
export class ApiError extends HttpProblem<ErrorCode> {
  constructor(
    status: number,
    code: ErrorCode,
    message: string,
    details?: ErrorDetail[],
    /** Headers the response must carry (Retry-After, WWW-Authenticate). */
    headers: Record<string, string> = {},
    options?: ErrorOptions,
  ) {
    super(status, code, message, details, headers, options);
  }
}
