import type { ErrorRequestHandler, Request } from 'express';
import { ApiError, type ErrorDetail } from '../errors/api-error.js';
import { IdempotencyKeyInUseError } from '../errors/idempotency-key-in-use-error.js';
import { InvalidRequestError } from '../errors/invalid-request-error.js';
import { NotFoundError } from '../errors/not-found-error.js';
import { NotImplementedError } from '../errors/not-implemented-error.js';
import { PayloadTooLargeError } from '../errors/payload-too-large-error.js';
import { ServiceUnavailableError } from '../errors/service-unavailable-error.js';
import { UnsupportedMediaTypeError } from '../errors/unsupported-media-type-error.js';
import { isLengthGuardError } from '../../../contract/length-before-pattern.js';
import { NO_METRICS, type ServiceMetrics } from '../../metrics/service-metrics.js';
import { ClaimLostError } from '../../store/claim-lost-error.js';
import { IDEMPOTENCY_TIMING } from '../../store/idempotency.js';
import { StoreUnavailableError } from '../../store/store-unavailable-error.js';
import { localsOf } from './locals.js';

/** Validator errors whose path ends in a property name as written (see fieldOf). */
const RAW_NAME_ERRORS = new Set([
  'additionalProperties.openapi.validation',
  'required.openapi.validation',
  'unevaluatedProperties.openapi.validation',
]);

/** Fields a 400 names at most (the contract says so). */
const MAX_DETAILS = 10;

/** A failure reported by express-openapi-validator. */
interface ValidatorError {
  status: number;
  message: string;
  errors: { path: string; message: string; errorCode?: string }[];
}

const isValidatorError = (e: unknown): e is ValidatorError =>
  typeof e === 'object' && e !== null && typeof (e as ValidatorError).status === 'number' && Array.isArray((e as ValidatorError).errors);

const LOCATION: Record<string, string> = { body: 'body', query: 'query', params: 'path', path: 'path', headers: 'header' };

/**
 * `/body/categoryId` → `body.categoryId`; `/query/limit` → `query.limit`; `/params/petId` →
 * `path.petId`. A path in slashes is split on slashes only, so a name with dots (`a..b`) is kept.
 */
function fieldOf(path: string, rawLast = false): string {
  const trimmed = path.replace(/^\.?\/?/, '');
  const parts = (path.includes('/') ? trimmed.split('/') : trimmed.split('.'))
    .filter(Boolean)
    .map((part, i, all) => (rawLast && i === all.length - 1 ? part : part.replace(/~1/g, '/').replace(/~0/g, '~')));
  const [where, ...rest] = parts;
  return [LOCATION[where ?? ''] ?? where ?? 'request', ...rest].join('.');
}

/** Turns anything thrown into an ApiError; null for an unexpected failure (a 500). */
function toApiError(error: unknown, req: Request): ApiError | null {
  if (error instanceof ApiError) return error;
  if (error instanceof StoreUnavailableError) {
    return new ServiceUnavailableError('The store is temporarily unavailable; retry after 5 seconds.', 5, { cause: error });
  }
  // Another request holds the key now (this one's claim lapsed), for at most the lock time unless it renews it.
  if (error instanceof ClaimLostError) return new IdempotencyKeyInUseError(Math.ceil(IDEMPOTENCY_TIMING.lockMs / 1000));
  if (isValidatorError(error)) {
    switch (error.status) {
      case 400: {
        const details: ErrorDetail[] = error.errors
          .filter((e) => !isLengthGuardError(e))
          .slice(0, MAX_DETAILS)
          // The validator appends the name of a missing or unknown property to the (escaped)
          // JSON pointer as it is, unescaped: `~0 ` stays `~0 `.
          .map((e) => ({ field: fieldOf(e.path, RAW_NAME_ERRORS.has(e.errorCode ?? '')), message: e.message }));
        return new InvalidRequestError(details.length > 0 ? details : [{ field: 'request', message: error.message }]);
      }
      case 404:
        return new NotFoundError(`No route ${req.method} ${req.path}.`);
      case 413:
        return new PayloadTooLargeError(0);
      case 415:
        return new UnsupportedMediaTypeError();
      default:
        return null;
    }
  }
  // A path that does not decode (`/pets/%ZZ`).
  if (error instanceof URIError) return new InvalidRequestError([{ field: 'path', message: 'is not valid percent-encoding' }]);
  return null;
}

/**
 * The one place errors become responses: the contract's Error body, its status and headers.
 * Anything unexpected (including a response that broke the contract) is logged in full and
 * answered with a 500 that reveals nothing.
 */
export function errorHandler(metrics: ServiceMetrics = NO_METRICS): ErrorRequestHandler {
  return (error, req, res, next) => {
    if (res.headersSent) return next(error);
    if (error instanceof StoreUnavailableError) metrics.storeError();
    const apiError =
      toApiError(error, req) ??
      new ApiError(500, 'internal_error', 'An internal error occurred; quote the X-Request-Id when reporting it.');
    const log = localsOf(res).log;
    if (apiError.status === 503) log?.warn({ err: error }, 'dependency unavailable');
    // A stall past the lock time, renewals the store refused or a client that went away: worth a line, not an alarm.
    else if (error instanceof ClaimLostError) log?.warn({ err: error }, 'lost an Idempotency-Key claim before completing');
    // A handler not written yet: what to do, not a failure to investigate.
    else if (apiError instanceof NotImplementedError) log?.warn(apiError.hint);
    else if (apiError.status >= 500) log?.error({ err: error }, 'request failed');
    res.status(apiError.status).set(apiError.headers);
    // Sent as text so the response validator, which wraps res.json, does not re-validate it.
    res.type('application/json').send(JSON.stringify(apiError.toBody()));
  };
}
