import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import type { OperationInfo } from '../../../contract/operations.js';
import { strictJsonRefusal } from '../../../contract/strict-json.js';
import { ApiError } from '../errors/api-error.js';
import { InvalidRequestError } from '../errors/invalid-request-error.js';
import { PayloadTooLargeError } from '../errors/payload-too-large-error.js';
import { UnsupportedMediaTypeError } from '../errors/unsupported-media-type-error.js';

/** Whether a request carries a body at all (a chunked one, or a Content-Length above 0). */
const hasBody = (headers: express.Request['headers']) =>
  headers['transfer-encoding'] !== undefined || Number(headers['content-length'] ?? 0) > 0;

/**
 * The steps that read an operation's application/json body (none for one that takes no body) with express.json: it undoes gzip,
 * deflate or br, and refuses a body over `limitBytes` once decoded (413). Before that, a missing
 * required body is a 400, and a declared length over the limit a 413 at once, without reading
 * the body. Before it is parsed, the body must be UTF-8 (415 for another charset, RFC 8259,
 * section 8.1) and is refused (400) where it is empty, not UTF-8, not JSON, or JSON that
 * JSON.parse would take with a silent change: a key given twice, a number that would be rounded
 * (src/contract/strict-json.ts). A body of another media type is left unread for the validator
 * to refuse with 415; whether the JSON fits the schema is the validator's to say.
 */
export function jsonBody(op: OperationInfo, limitBytes: number): (RequestHandler | ErrorRequestHandler)[] {
  if (!op.hasRequestBody) return [];
  const before: RequestHandler = (req, _res, next) => {
    if (!hasBody(req.headers)) {
      if (op.requiresBody) throw new InvalidRequestError([{ field: 'body', message: 'is required' }], 'The request body is missing.');
    } else if (Number(req.headers['content-length']) > limitBytes) throw new PayloadTooLargeError(limitBytes);
    next();
  };
  const read = express.json({
    limit: limitBytes,
    type: 'application/json',
    strict: false,
    verify: (_req, _res, bytes, charset) => {
      if (charset !== 'utf-8' && charset !== 'utf8') {
        throw new UnsupportedMediaTypeError(`The request body must be application/json in UTF-8, not ${charset}.`);
      }
      const refusal = strictJsonRefusal(bytes);
      if (refusal) throw new InvalidRequestError(refusal.details, refusal.message);
    },
  });
  // express.json's own refusals (errors with a 4xx status: the steps before throw ApiErrors), in the contract's words.
  const refusals: ErrorRequestHandler = (error: { status?: unknown; message?: string }, req, _res, next) => {
    if (error instanceof ApiError || typeof error.status !== 'number' || error.status < 400 || error.status > 499) return next(error);
    if (error.status === 413) return next(new PayloadTooLargeError(limitBytes));
    if (error.status === 415) return next(new UnsupportedMediaTypeError(`The request body cannot be read: ${error.message}.`));
    const coding = req.headers['content-encoding'] ?? 'identity';
    next(
      new InvalidRequestError([{ field: 'body', message: `could not be read as ${coding}` }], 'The request body could not be read.', {
        cause: error,
      }),
    );
  };
  return [before, read, refusals];
}
