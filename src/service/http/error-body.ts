import type { ErrorRequestHandler, Request } from 'express';
import { operationOf, type HttpProblem, type ProblemFormatter } from 'contract-kit';
import type { ErrorBody, ErrorCode } from './errors/api-error.js';
import { IdempotencyKeyInUseError } from './errors/idempotency-key-in-use-error.js';
import { InvalidRequestError } from './errors/invalid-request-error.js';
import { ServiceUnavailableError } from './errors/service-unavailable-error.js';
import { NO_METRICS, type ServiceMetrics } from '../metrics/service-metrics.js';
import { ClaimLostError } from '../store/claim-lost-error.js';
import { IDEMPOTENCY_TIMING } from '../store/idempotency.js';
import { StoreUnavailableError } from '../store/store-unavailable-error.js';
import { localsOf } from './middleware/locals.js';

/** Fields a 400 names at most (the contract says so). */
const MAX_DETAILS = 10;

/**
 * The contract's Error body for every refusal and failure, contract-kit's and the service's own:
 * `{ code, message, status }`, and for a 400 `details`, each field it names (at most 10), in
 * `application/json`.
 */
export const errorBody: ProblemFormatter = (problem: HttpProblem) => {
  // A failure says nothing of itself; the request id finds it in the log.
  const message =
    problem.code === 'internal_error' ? 'An internal error occurred; quote the X-Request-Id when reporting it.' : problem.message;
  const body: ErrorBody = { code: problem.code as ErrorCode, message, status: problem.status };
  if (problem.details.length > 0) body.details = problem.details.slice(0, MAX_DETAILS);
  return { contentType: 'application/json', body };
};

/**
 * The service's errors that are not HttpProblems, as the problems they are answered with: a store
 * that cannot be reached is a 503 to retry after 5 s; an Idempotency-Key claim lost to another
 * instance a 409; a path that does not decode (`/pets/%ZZ`) a 400. Anything else is a 500.
 */
export function problemOf(error: unknown): HttpProblem | undefined {
  if (error instanceof StoreUnavailableError) {
    return new ServiceUnavailableError('The store is temporarily unavailable; retry after 5 seconds.', 5, { cause: error });
  }
  if (error instanceof ClaimLostError) return new IdempotencyKeyInUseError(Math.ceil(IDEMPOTENCY_TIMING.lockMs / 1000));
  if (error instanceof URIError) return new InvalidRequestError([{ field: 'path', message: 'is not valid percent-encoding' }]);
  return undefined;
}

/**
 * What a developer must do about an operation that has no handler yet: for the log and the
 * tests, never for clients (it names a source file).
 */
export function notImplementedHint(operationId: string): string {
  return `${operationId} is not implemented: write src/service/http/handlers/${operationId}.ts (see generated/handlers.ts)`;
}

/**
 * The log line and metric of an error answer: a dependency unavailable (and counted), a claim
 * lost, an operation not written yet (what to do, not a failure to investigate) at warn; any
 * other 5xx, logged in full at error, is a failure; refusals of clients are in the request's line.
 */
export function reportError(metrics: ServiceMetrics = NO_METRICS) {
  return (error: unknown, problem: HttpProblem, req: Request): void => {
    if (error instanceof StoreUnavailableError) metrics.storeError();
    const log = req.res ? localsOf(req.res).log : undefined;
    if (problem.status === 503) log?.warn({ err: error }, 'dependency unavailable');
    // A stall past the lock time, renewals the store refused or a client that went away: worth a line, not an alarm.
    else if (error instanceof ClaimLostError) log?.warn({ err: error }, 'lost an Idempotency-Key claim before completing');
    // The stub `npm run generate` writes (contract-kit's): what to write.
    else if (problem.status === 501 && problem.code === 'not_implemented')
      log?.warn(notImplementedHint(operationOf(req)?.name ?? req.path));
    else if (problem.status >= 500) log?.error({ err: error }, 'request failed');
  };
}

/**
 * An error once the answer was sent whole: a step still running when the HTTP server refused its
 * request's broken body (http-server.ts). The answer stands, and Express would print the error
 * on stderr (and reset the connection): logged at debug instead.
 */
export const afterTheAnswer: ErrorRequestHandler = (error: unknown, _req, res, next) => {
  if (!res.writableEnded) return next(error);
  localsOf(res).log.debug({ err: error }, 'an error after the answer was sent');
};
