import { MIMEType } from 'node:util';
import type { Request, RequestHandler } from 'express';
import type { OperationInfo } from '../../../contract/operations.js';
import { parseStrictJson } from '../../../contract/strict-json.js';
import { InvalidRequestError } from '../errors/invalid-request-error.js';
import { PayloadTooLargeError } from '../errors/payload-too-large-error.js';
import { UnsupportedMediaTypeError } from '../errors/unsupported-media-type-error.js';
import { BodyReadError, readBody } from './read-body.js';

/** Whether a request carries a body at all (a chunked one, or a Content-Length above 0). */
const hasBody = (headers: Request['headers']) => headers['transfer-encoding'] !== undefined || Number(headers['content-length'] ?? 0) > 0;

/** The charset of an application/json body: UTF-8 when the Content-Type names none. */
function charsetOf(req: Request): string {
  try {
    return new MIMEType(req.headers['content-type'] ?? '').params.get('charset')?.toLowerCase() ?? 'utf-8';
  } catch {
    return 'utf-8';
  }
}

/** A failure to read the body, in the contract's words. */
function refusalOf(error: unknown, limitBytes: number): unknown {
  if (!(error instanceof BodyReadError)) return error;
  const { failure } = error;
  switch (failure.kind) {
    case 'too_large':
      return new PayloadTooLargeError(limitBytes);
    case 'unsupported_coding':
      return new UnsupportedMediaTypeError(`The request body cannot be read: unsupported content encoding "${failure.coding}".`);
    case 'undecodable':
      return new InvalidRequestError(
        [{ field: 'body', message: `could not be read as ${failure.coding}` }],
        'The request body could not be read.',
        {
          cause: error,
        },
      );
    case 'aborted':
      return error;
  }
}

/**
 * The step that reads an operation's application/json body (none for one that takes no body):
 * a missing required body is a 400, and a declared length over the limit a 413 at once, without
 * reading the body. Otherwise the body is read (gzip, deflate or br undone) and refused with 413
 * as soon as it passes `limitBytes`, without reading on (read-body.ts). It must be UTF-8 (415 for
 * another charset, RFC 8259, section 8.1) and is refused (400) where it is empty, not UTF-8, not
 * JSON, or JSON that JSON.parse would take with a silent change: a key given twice, a number
 * that would be rounded (src/contract/strict-json.ts). A body of another media type is left
 * unread for the validator to refuse with 415; whether the JSON fits the schema is the
 * validator's to say.
 */
export function jsonBody(op: OperationInfo, limitBytes: number): RequestHandler[] {
  if (!op.hasRequestBody) return [];
  return [
    async (req, _res, next) => {
      if (!hasBody(req.headers)) {
        if (op.requiresBody) throw new InvalidRequestError([{ field: 'body', message: 'is required' }], 'The request body is missing.');
        return next();
      }
      if (Number(req.headers['content-length']) > limitBytes) throw new PayloadTooLargeError(limitBytes);
      if (!req.is('application/json')) return next();
      const charset = charsetOf(req);
      if (charset !== 'utf-8' && charset !== 'utf8') {
        throw new UnsupportedMediaTypeError(`The request body must be application/json in UTF-8, not ${charset}.`);
      }
      let bytes: Buffer;
      try {
        bytes = await readBody(req, limitBytes);
      } catch (error) {
        throw refusalOf(error, limitBytes);
      }
      const parsed = parseStrictJson(bytes);
      if ('refusal' in parsed) throw new InvalidRequestError(parsed.refusal.details, parsed.refusal.message);
      req.body = parsed.value;
      next();
    },
  ];
}
