import type { Request, RequestHandler } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import { resolveRef, unescapePointer, type OpenApiDocument } from '../contract/document.js';
import { isIgnoredHeader, type Operation } from '../contract/operations.js';
import { isLengthGuardError, lengthBeforePattern } from './length-before-pattern.js';
import { fixSchemas, validatorParameter } from './schema-fixes.js';
import { essenceOf, kindOf, type BodyKind } from './media-types.js';
import { HttpProblem, invalidRequest, type KitProblemCode } from './problems.js';
import { readableDetails } from './readable-messages.js';

/** Every `#/...` a node refers to, and what those refer to in turn. */
function referencedPointers(doc: OpenApiDocument, node: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(node)) {
    for (const item of node) referencedPointers(doc, item, found);
  } else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key !== '$ref' || typeof value !== 'string') {
        referencedPointers(doc, value, found);
      } else if (value.startsWith('#/') && !found.has(value)) {
        found.add(value);
        referencedPointers(doc, resolveRef(doc, { $ref: value }, value), found);
      }
    }
  }
  return found;
}

/** The components `node` needs, each whole; a `$ref` outside `#/components/` brings the contract's paths along. */
function componentsOf(doc: OpenApiDocument, node: unknown): { components: Record<string, Record<string, unknown>>; paths: boolean } {
  const components: Record<string, Record<string, unknown>> = {};
  let paths = false;
  for (const pointer of referencedPointers(doc, node)) {
    const [, top, kind, name] = pointer.split('/').map(unescapePointer);
    if (top === 'components' && kind !== undefined && name !== undefined) (components[kind] ??= {})[name] = doc.components![kind]![name];
    else paths = true;
  }
  return { components, paths };
}

/** The schema the validator checks a body of `kind` against: XML is checked as text, bytes not at all. */
function validatedSchema(kind: BodyKind, schema: unknown): unknown {
  if (kind === 'xml') return { type: 'string' };
  if (kind === 'binary') return {};
  return schema;
}

/** The path parameters of the operation in the order its path names them. */
export function pathParameterNames(op: Operation): string[] {
  return [...op.path.matchAll(/\{([^{}]+)\}/g)].map((m) => m[1]!);
}

/** The path the validator is given for an operation with `count` path parameters: `/op/{p0}/{p1}`. */
const validatorPath = (count: number) => `/op${Array.from({ length: count }, (_, i) => `/{p${i}}`).join('')}`;

/**
 * The URL the validator is shown for a request to an operation: validatorPath with the path
 * parameters' values, and the request's query. The validator compiles the path it is given
 * (path-to-regexp), which a contract's own path may not survive: a `+`, a parenthesis, a
 * parameter named `station-id`.
 */
export function validatorUrl(names: readonly string[], params: Record<string, string>, url: string): string {
  const query = url.indexOf('?');
  const path = `/op${names.map((name) => `/${encodeURIComponent(params[name] ?? '')}`).join('')}`;
  return query < 0 ? path : `${path}${url.slice(query)}`;
}

/**
 * An operation's parameters as the validator reads them (validatorParameter), but the headers
 * OpenAPI ignores (isIgnoredHeader), each path
 * parameter renamed `p0`, `p1`... in the order its path names them.
 */
function renamed(doc: OpenApiDocument, parameters: unknown, names: readonly string[], where: string): unknown[] | undefined {
  if (!Array.isArray(parameters)) return undefined;
  return (parameters as unknown[])
    .map((raw, i) => validatorParameter(doc, resolveRef<Record<string, unknown>>(doc, raw, `${where}/parameters/${i}`)))
    .filter((p) => !isIgnoredHeader(p))
    .map((p): unknown => (p.in === 'path' ? { ...p, name: `p${names.indexOf(p.name as string)}` } : p));
}

/**
 * The document the validator gets for one operation: that operation alone, under a path made of
 * its parameters only (see validatorUrl), served at `/`, with the components it refers to and no
 * others, so that the validator's work per request does not grow with the contract. A GET also
 * answers HEAD. XML bodies are checked as text, other bytes not at all.
 */
export function validatorDocument(doc: OpenApiDocument, op: Operation): OpenApiDocument {
  const names = pathParameterNames(op);
  const where = `#/paths/${op.path}`;
  const item = resolveRef<Record<string, unknown>>(doc, doc.paths![op.path], where);
  const operation = { ...(item[op.method] as Record<string, unknown>) };
  delete operation.callbacks;
  // The validator does not check security (the authenticate step does), but reads it to let an
  // apiKey through in the query: each scheme the operation names, as a requirement of its own.
  const schemeNames = [...new Set(op.security.flatMap((requirement) => Object.keys(requirement)))];
  operation.security = schemeNames.map((name) => ({ [name]: [] }));
  operation.parameters = renamed(doc, operation.parameters, names, where);
  if (op.requestBody) {
    operation.requestBody = {
      required: op.requestBody.required,
      content: Object.fromEntries(
        Object.entries(op.requestBody.content).map(([mediaType, media]) => [
          // The validator matches `type/*` ranges only; the body step matched the suffix of `application/*+json`.
          mediaType.replace(/^([^/]+)\/\*\+[^;]*/, '$1/*'),
          { ...media, schema: validatedSchema(kindOf(essenceOf(mediaType) ?? mediaType), media.schema) },
        ]),
      ),
    };
  }
  const only: Record<string, unknown> = { parameters: renamed(doc, item.parameters, names, where), [op.method]: operation };
  if (op.method === 'get' && !item.head) {
    const { operationId: _, ...head } = operation;
    only.head = head;
  }
  const { components, paths } = componentsOf(doc, only);
  const schemes = doc.components?.securitySchemes ?? {};
  if (schemeNames.length > 0) components.securitySchemes = Object.fromEntries(schemeNames.map((name) => [name, schemes[name]]));
  const document: OpenApiDocument = {
    openapi: doc.openapi,
    info: doc.info,
    servers: [{ url: '/' }],
    // A $ref into another path's parts (rare) needs that path: the contract's paths come along.
    paths: { ...(paths ? doc.paths : {}), [validatorPath(names.length)]: only },
    components,
  };
  return lengthBeforePattern(fixSchemas(structuredClone(document)));
}

/**
 * express-openapi-validator for one operation, through its public middleware: parameters,
 * headers, the body (as `kind` was read: JSON not coerced, a form's strings coerced to what its
 * schema types) and every response the handler sends as JSON. It is given validatorDocument,
 * and reads the request's URL (`useRequestUrl`), which the validate step sets to validatorUrl.
 */
export function operationValidator(
  document: OpenApiDocument,
  kind: BodyKind | 'none',
  options: { validateResponses: boolean; formats: Record<string, () => boolean> },
): RequestHandler[] {
  return OpenApiValidator.middleware({
    apiSpec: document as never,
    validateApiSpec: false,
    validateRequests: {
      allowUnknownQueryParameters: false,
      // A form's fields are strings: coerced to the scalar their schema names (the body step makes the arrays).
      coerceTypes: kind === 'form' || kind === 'multipart',
      allErrors: true,
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
  if (path === '/op' || path.startsWith('/op/')) return 'body';
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

/**
 * What the validator reported about a request, as the kit answers it: a 400 naming each field
 * (the contract's names), 413, 415; undefined for anything else (a response that broke the
 * contract, a schema the validator could not compile: the application's failure, a 500).
 */
export function problemOfValidatorError(error: ValidatorError, doc: OpenApiDocument, op: Operation, req: Request): HttpProblem | undefined {
  const names = pathParameterNames(op);
  switch (error.status) {
    case 400: {
      const findings = (error.errors ?? [])
        .filter((e) => !isLengthGuardError(e))
        .map((e) => ({
          field: fieldOf(e.path, names, RAW_NAME_ERRORS.has(e.errorCode ?? '')),
          keyword: keywordOf(e.errorCode),
          message: e.message,
        }));
      const details = readableDetails(doc, op, findings, req.get('content-type')).slice(0, MAX_DETAILS);
      return invalidRequest(details.length > 0 ? details : [{ field: 'request', message: error.message }]);
    }
    case 404:
      return new HttpProblem<KitProblemCode>(404, 'not_found', `Nothing is at ${req.originalUrl.split('?')[0]}.`);
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
