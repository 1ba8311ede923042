import type { Request, RequestHandler } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import { unescapePointer, type OpenApiDocument } from '../contract/document.js';
import type { Operation } from '../contract/operations.js';
import { isLengthGuardError } from './length-before-pattern.js';
import type { BodyKind } from './media-types.js';
import { HttpProblem, invalidRequest, UNMATCHED_HEADER, type KitProblemCode } from './problems.js';
import { readableDetails, type Finding } from './readable-messages.js';
import { isValidatorUrl, pathParameterNames } from './validator-document.js';

/**
 * express-openapi-validator run on the document of one path's operations (validator-document.ts),
 * and what it reports read as the kit's problems.
 */

/** Whether the validator coerces a body of `kind`: a form's fields are strings, coerced to the scalar their schema names. */
export const coercesBody = (kind: BodyKind | 'none') => kind === 'form' || kind === 'multipart';

/**
 * express-openapi-validator for the operations of a validatorDocument, through its public
 * middleware: parameters, headers, the body (JSON not coerced, a form's strings coerced to what
 * its schema types, see coercesBody) and every response the handler sends as JSON. It reports
 * every wrong value of a request (`allErrors`), or stops at the first, which bounds what a body
 * of many wrong values costs (Ajv makes an error of each). It reads the request's URL
 * (`useRequestUrl`), which the validate step sets to validatorUrl.
 */
export function operationValidator(
  document: OpenApiDocument,
  { coerce, allErrors }: { coerce: boolean; allErrors: boolean },
  options: { validateResponses: boolean; formats: Record<string, () => boolean> },
): RequestHandler[] {
  return OpenApiValidator.middleware({
    apiSpec: document as never,
    validateApiSpec: false,
    validateRequests: {
      allowUnknownQueryParameters: false,
      // The body step makes a form's arrays.
      coerceTypes: coerce,
      allErrors,
    },
    validateResponses: options.validateResponses ? { removeAdditional: false, allErrors: true } : false,
    formats: options.formats,
    validateSecurity: false,
    validateFormats: true,
    fileUploader: false,
    useRequestUrl: true,
  });
}

/** A failure reported by express-openapi-validator. */
interface ValidatorError {
  status: number;
  message: string;
  errors?: { path: string; message: string; errorCode?: string }[];
}

export const isValidatorError = (e: unknown): e is ValidatorError =>
  typeof e === 'object' && e !== null && typeof (e as ValidatorError).status === 'number' && !(e instanceof HttpProblem);

/** Validator errors whose path ends in a property name as written (see fieldOf). */
const RAW_NAME_ERRORS = new Set([
  'additionalProperties.openapi.validation',
  'required.openapi.validation',
  'unevaluatedProperties.openapi.validation',
]);

const LOCATION: Record<string, string> = {
  body: 'body',
  query: 'query',
  params: 'path',
  path: 'path',
  headers: 'header',
  cookies: 'cookie',
};

/**
 * `/body/name` → `body.name`; `/query/limit` → `query.limit`; `/params/p0` → `path.bookId` (the
 * name the contract gives it); a path that names no part of the request is the body's (the
 * validator's discriminator errors). A path in slashes is split on slashes only, so a name with
 * dots is kept.
 */
function fieldOf(path: string, names: readonly string[], rawLast: boolean): string {
  // The URL the validator was shown (validatorUrl): an error about the body as a whole.
  if (isValidatorUrl(path)) return 'body';
  const trimmed = path.replace(/^\.?\/?/, '');
  const parts = (path.includes('/') ? trimmed.split('/') : trimmed.split('.'))
    .filter(Boolean)
    .map((part, i, all) => (rawLast && i === all.length - 1 ? part : unescapePointer(part)));
  const [where = 'request', ...rest] = parts;
  if ((where === 'params' || where === 'path') && /^p\d+$/.test(rest[0] ?? '')) rest[0] = names[Number(rest[0]!.slice(1))] ?? rest[0]!;
  const location = LOCATION[where];
  return location ? [location, ...rest].join('.') : ['body', where, ...rest].join('.');
}

/** `maxLength.openapi.validation` → `maxLength`: the JSON Schema keyword of a validator error. */
const keywordOf = (errorCode: string | undefined) => errorCode?.replace(/\.openapi\.validation$/, '');

/** Fields a 400 names at most. */
const MAX_DETAILS = 10;
/** Validator errors read at most: enough for MAX_DETAILS once those readableDetails leaves out are gone. */
const MAX_FINDINGS = 10 * MAX_DETAILS;

/**
 * What the validator reported about a request, as the kit answers it: a 400 naming each field
 * (the contract's names), 413, 415; undefined for anything else (a response that broke the
 * contract, a schema the validator could not compile: the application's failure, a 500).
 */
export function problemOfValidatorError(error: ValidatorError, doc: OpenApiDocument, op: Operation, req: Request): HttpProblem | undefined {
  const names = pathParameterNames(op);
  switch (error.status) {
    case 400: {
      // The first only: the validator reports one per wrong value (700,000 for 350,000 empty items).
      const findings: Finding[] = [];
      for (const e of error.errors ?? []) {
        if (findings.length === MAX_FINDINGS) break;
        if (isLengthGuardError(e)) continue;
        findings.push({
          field: fieldOf(e.path, names, RAW_NAME_ERRORS.has(e.errorCode ?? '')),
          keyword: keywordOf(e.errorCode),
          message: e.message,
        });
      }
      const details = readableDetails(doc, op, findings, req.get('content-type')).slice(0, MAX_DETAILS);
      return invalidRequest(details.length > 0 ? details : [{ field: 'request', message: error.message }]);
    }
    case 404:
      return new HttpProblem<KitProblemCode>(404, 'not_found', `Nothing is at ${req.originalUrl.split('?')[0]}.`, [], {
        [UNMATCHED_HEADER]: 'not_found',
      });
    case 413:
      return new HttpProblem<KitProblemCode>(413, 'payload_too_large', 'The request body is too large.');
    case 415:
      return new HttpProblem<KitProblemCode>(
        415,
        'unsupported_media_type',
        `${req.method} ${op.path} does not take a body of this media type.`,
      );
    default:
      return undefined;
  }
}
