import type { IncomingHttpHeaders } from 'node:http';
import busboy from 'busboy';
import { XMLValidator } from 'fast-xml-parser';
import { resolveRef, type OpenApiDocument } from '../contract/document.js';
import type { Operation } from '../contract/operations.js';
import { HttpProblem, invalidRequest, type KitProblemCode } from './problems.js';
import { BodyReadError, readBody } from './read-body.js';
import { parseStrictJson, type JsonLimits } from './strict-json.js';
import type { BodyKind } from './media-types.js';

/** A file of a multipart/form-data body, as a handler gets it. */
export interface UploadedFile {
  filename: string | undefined;
  contentType: string;
  data: Buffer;
}

/** A body read and parsed: what the validator checks (`value`), the files of a multipart body, and its bytes once inflated. */
export interface ParsedBody {
  value: unknown;
  files: Record<string, UploadedFile | UploadedFile[]>;
  bytes: number;
}

/** How large a body may be, and what one JSON body may hold (see JsonLimits). */
export interface BodyLimits extends JsonLimits {
  limitBytes: number;
  /** The most a streamed body (OpenAPI 3.2 `itemSchema`) may carry in all; each of its items is held to limitBytes. */
  streamLimitBytes: number;
}

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The body as text, or a 400 naming the body. */
function text(bytes: Buffer): string {
  try {
    return UTF8.decode(bytes);
  } catch {
    throw invalidRequest([{ field: 'body', message: 'is not valid UTF-8' }], 'The request body is not valid UTF-8.');
  }
}

/** Adds `value` under `name`, making an array of a name given more than once. */
function add<T>(into: Record<string, T | T[]>, name: string, value: T): void {
  const before = into[name];
  into[name] = before === undefined ? value : Array.isArray(before) ? [...before, value] : [before, value];
}

/** `a=1&b=2&b=3` → `{ a: '1', b: ['2', '3'] }`: the validator coerces the strings its schema types. */
function formFields(body: string): Record<string, string | string[]> {
  const fields: Record<string, string | string[]> = {};
  for (const [name, value] of new URLSearchParams(body)) add(fields, name, value);
  return fields;
}

/** The fields and files of a multipart/form-data body already read whole. */
function multipart(headers: IncomingHttpHeaders, bytes: Buffer, limits: BodyLimits): Promise<Omit<ParsedBody, 'bytes'>> {
  return new Promise((resolve, reject) => {
    const fields: Record<string, string | string[]> = {};
    const files: Record<string, UploadedFile | UploadedFile[]> = {};
    const refuse = (error: unknown) =>
      reject(
        invalidRequest(
          [{ field: 'body', message: `is not valid multipart/form-data (${(error as Error).message})` }],
          'The request body could not be read.',
        ),
      );
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers, limits: { fieldSize: limits.limitBytes } });
    } catch (error) {
      return refuse(error);
    }
    const pending: Promise<void>[] = [];
    parser.on('field', (name, value) => add(fields, name, value));
    parser.on('file', (name, stream, info) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      pending.push(
        new Promise((done) =>
          stream.on('close', () => {
            add(files, name, { filename: info.filename, contentType: info.mimeType, data: Buffer.concat(chunks) });
            done();
          }),
        ),
      );
    });
    parser.on('error', refuse);
    parser.on('close', () => {
      void Promise.all(pending).then(() => {
        // The validator sees a file as an empty string, as express-openapi-validator's own upload does.
        const value: Record<string, unknown> = { ...fields };
        for (const [name, file] of Object.entries(files)) value[name] = Array.isArray(file) ? file.map(() => '') : '';
        resolve({ value, files });
      });
    });
    parser.end(bytes);
  });
}

/** A failure to read a body, as the kit answers it. */
export function refusalOf(error: unknown, limitBytes: number): unknown {
  if (!(error instanceof BodyReadError)) return error;
  const { failure } = error;
  switch (failure.kind) {
    case 'too_large':
      return new HttpProblem<KitProblemCode>(413, 'payload_too_large', `The request body is larger than ${limitBytes} bytes.`);
    case 'unsupported_coding':
      return new HttpProblem<KitProblemCode>(
        415,
        'unsupported_media_type',
        `The request body's content coding ${failure.coding} is not supported.`,
      );
    case 'undecodable':
      return invalidRequest([{ field: 'body', message: `could not be read as ${failure.coding}` }], 'The request body could not be read.');
    case 'aborted':
      // The client's doing (gone, or cut off by the server's request timeout), not the server's:
      // a 400 that no one receives, rather than a 500 an application would log as its failure.
      return new HttpProblem<KitProblemCode>(
        400,
        'invalid_request',
        'The request body was not received in full: the connection closed before its end.',
        [],
        {},
        { cause: error },
      );
  }
}

/**
 * Reads a request's body whole (up to its limit: read-body.ts) and parses it as `kind` says:
 * JSON strictly (strict-json.ts), a form's fields, a multipart form's fields and files, XML as
 * its text once it is well-formed, text as text, anything else as bytes.
 * @throws HttpProblem 400, 413 or 415 for a body that cannot be read or parsed
 */
export async function readParsedBody(req: Parameters<typeof readBody>[0], kind: BodyKind, limits: BodyLimits): Promise<ParsedBody> {
  let bytes: Buffer;
  try {
    bytes = await readBody(req, limits.limitBytes);
  } catch (error) {
    throw refusalOf(error, limits.limitBytes);
  }
  return { ...(await parse(req.headers, kind, limits, bytes)), bytes: bytes.length };
}

/** A body read whole, parsed as `kind` says (see readParsedBody). */
async function parse(headers: IncomingHttpHeaders, kind: BodyKind, limits: BodyLimits, bytes: Buffer): Promise<Omit<ParsedBody, 'bytes'>> {
  switch (kind) {
    case 'json': {
      const parsed = parseStrictJson(bytes, limits);
      if ('refusal' in parsed) throw invalidRequest(parsed.refusal.details, parsed.refusal.message);
      return { value: parsed.value, files: {} };
    }
    case 'form':
      return { value: formFields(text(bytes)), files: {} };
    case 'multipart':
      return multipart(headers, bytes, limits);
    case 'xml': {
      const xml = text(bytes);
      const verdict = XMLValidator.validate(xml);
      if (verdict !== true) {
        const { msg, line } = verdict.err;
        throw invalidRequest(
          [{ field: 'body', message: `is not well-formed XML (line ${line}: ${msg})` }],
          'The request body is not well-formed XML.',
        );
      }
      return { value: xml, files: {} };
    }
    case 'text':
      return { value: text(bytes), files: {} };
    case 'binary':
      return { value: bytes, files: {} };
  }
}

/** The names of a form's fields whose schema is an array, for a media type the operation declares. */
export function arrayFields(doc: OpenApiDocument, op: Operation, mediaType: string): Set<string> {
  const schema = resolveRef<{ properties?: Record<string, unknown> } | undefined>(doc, op.requestBody?.content[mediaType]?.schema);
  const fields = new Set<string>();
  for (const [name, property] of Object.entries(schema?.properties ?? {})) {
    if (resolveRef<{ type?: unknown } | undefined>(doc, property)?.type === 'array') fields.add(name);
  }
  return fields;
}

/** A form's fields with each one its schema makes an array given as one (`?tag=a`) or several (`?tag=a&tag=b`). */
export function withArrays(value: unknown, arrays: Set<string>): unknown {
  if (arrays.size === 0 || typeof value !== 'object' || value === null) return value;
  const fields = value as Record<string, unknown>;
  for (const name of arrays) if (fields[name] !== undefined && !Array.isArray(fields[name])) fields[name] = [fields[name]];
  return fields;
}
