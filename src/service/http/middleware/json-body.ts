import type { Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { Request, RequestHandler } from 'express';
import { resolveRef, type OpenApiDocument } from '../../../contract/load-spec.js';
import type { OperationInfo } from '../../../contract/operations.js';
import { InvalidRequestError } from '../errors/invalid-request-error.js';
import { PayloadTooLargeError } from '../errors/payload-too-large-error.js';
import { UnsupportedMediaTypeError } from '../errors/unsupported-media-type-error.js';
import { perOperation } from '../per-operation.js';
import { strictJsonProblems } from './strict-json.js';

const CHARSET = /;\s*charset\s*=\s*"?([^";\s]*)/i;
const DECODERS: Record<string, () => NodeJS.ReadWriteStream> = {
  gzip: createGunzip,
  'x-gzip': createGunzip,
  deflate: createInflate,
  br: createBrotliDecompress,
};
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Whether a request carries a body at all (a chunked one, or a Content-Length above 0). */
function hasBody(req: Request): boolean {
  return req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
}

/**
 * Reads the body, undoing its Content-Encoding, and stops at `limitBytes` of decoded content:
 * a gzip bomb costs at most that much, and a client that declares or sends too much is answered
 * at once rather than read to the end (the error handler then closes the connection).
 */
async function readBody(req: Request, limitBytes: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (req.headers['transfer-encoding'] === undefined && declared > limitBytes) throw new PayloadTooLargeError(limitBytes);
  const coding = (req.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  const decoder = coding === 'identity' ? null : DECODERS[coding];
  if (decoder === undefined)
    throw new UnsupportedMediaTypeError(`The Content-Encoding ${coding} is not supported; send identity, gzip, deflate or br.`);
  const stream: Readable = decoder ? (req.pipe(decoder()) as unknown as Readable) : req;
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of stream) {
      size += (chunk as Buffer).length;
      if (size > limitBytes) throw new PayloadTooLargeError(limitBytes);
      chunks.push(chunk as Buffer);
    }
  } catch (error) {
    if (error instanceof PayloadTooLargeError) throw error;
    throw new InvalidRequestError([{ field: 'body', message: `could not be read as ${coding}` }], 'The request body could not be read.', {
      cause: error,
    });
  } finally {
    if (decoder) {
      req.unpipe();
      stream.destroy();
    }
  }
  return Buffer.concat(chunks);
}

/**
 * Parses a JSON body strictly: UTF-8, present, valid, no duplicate keys, exact numbers. Throws
 * the InvalidRequestError the request is refused with (the mock refuses the same bodies with it).
 */
export function parseStrictJson(bytes: Buffer): unknown {
  if (bytes.length === 0) throw new InvalidRequestError([{ field: 'body', message: 'is required' }], 'The request body is missing.');
  let text: string;
  try {
    text = UTF8.decode(bytes);
  } catch {
    throw new InvalidRequestError([{ field: 'body', message: 'is not valid UTF-8' }], 'The request body is not valid UTF-8.');
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new InvalidRequestError([{ field: 'body', message: 'is not valid JSON' }], 'The request body is not valid JSON.');
  }
  const problems = strictJsonProblems(text);
  if (problems.length > 0) throw new InvalidRequestError(problems.slice(0, 10));
  return value;
}

/**
 * Reads the JSON body of the operations that take one, and of no other request. Refuses a
 * missing required body (400), a charset other than UTF-8 (415: RFC 8259, section 8.1), a body
 * over `limitBytes` once decoded (413), and JSON that JSON.parse would take with a silent change
 * (400, see strict-json.ts). A body that is not application/json is left unread for the
 * validator to refuse with 415.
 */
export function jsonBody(doc: OpenApiDocument, operations: OperationInfo[], limitBytes: number): RequestHandler {
  return perOperation(operations, (op) => {
    if (!op.hasRequestBody) return undefined;
    const requestBody = resolveRef<{ required?: boolean }>(doc, (doc.paths[op.path]?.[op.method] as { requestBody?: unknown }).requestBody);
    return async (req, _res, next) => {
      if (!hasBody(req)) {
        if (requestBody.required)
          throw new InvalidRequestError([{ field: 'body', message: 'is required' }], 'The request body is missing.');
        return next();
      }
      if (!req.is('application/json')) return next();
      const charset = CHARSET.exec(req.headers['content-type'] ?? '')?.[1]?.toLowerCase();
      if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
        throw new UnsupportedMediaTypeError(`The request body must be application/json in UTF-8, not ${charset}.`);
      }
      req.body = parseStrictJson(await readBody(req, limitBytes));
      next();
    };
  });
}
