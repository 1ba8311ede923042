import { createRequire } from 'node:module';

// Required, not imported: an ES import of node:http has Node read every export of the module for
// its ES facade, WebSocket's among them, which loads undici (nodejs/node#59686): 100 ms more to
// start and 13 MiB more resident for every server of the kit.
const { STATUS_CODES } = createRequire(import.meta.url)('node:http') as typeof import('node:http');

/** One thing wrong with a request: where (`body.name`, `query.limit`, `path.id`, `header.X-Id`, `body`) and what. */
export interface ProblemDetail {
  field: string;
  message: string;
}

/** The problems the kit itself answers, by a code an error body can carry. */
export type KitProblemCode =
  | 'invalid_request'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'method_not_allowed'
  | 'gone'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'request_header_fields_too_large'
  | 'internal_error'
  | 'not_implemented'
  | 'service_unavailable';

/**
 * The header on the kit's own 404 and 405, those of a request no operation of the contract
 * matched: `not_found` (no path) or `method_not_allowed` (no such method on the path). A 404 a
 * handler answers (an unknown id) never has it, so that a client or a test can tell them apart.
 */
export const UNMATCHED_HEADER = 'Contract-Unmatched';

/**
 * An error answered with a status and the contract's error body (see ProblemFormatter): what
 * the kit refuses, and what an application's steps and handlers throw to refuse a request.
 */
export class HttpProblem<Code extends string = string> extends Error {
  constructor(
    readonly status: number,
    /** A machine-readable code (the kit's are KitProblemCode). */
    readonly code: Code,
    /** What happened, for a person (RFC 9457's `detail`). */
    message: string,
    /** Each thing wrong with the request, for a 400. */
    readonly details: ProblemDetail[] = [],
    /** Headers the answer must carry (WWW-Authenticate, Allow, Retry-After). */
    readonly headers: Record<string, string> = {},
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** What an error answer is: its media type and its body (a value sent as JSON, or text). */
export interface ProblemResponse {
  contentType: string;
  body: unknown;
}

/**
 * Builds the error body of an answer: the contract's error shape. `contentType` is the media
 * type the operation declares for that status (or `4XX`/`5XX`, or `default`), when it declares
 * one; else `application/problem+json`.
 */
export type ProblemFormatter = (problem: HttpProblem, context: { contentType: string; instance: string }) => ProblemResponse;

/** A JSON pointer into the body for a field the kit names `body.a.b`: `/a/b`. */
const pointerOf = (field: string) =>
  `/${field
    .split('.')
    .slice(1)
    .map((part) => part.replace(/~/g, '~0').replace(/\//g, '~1'))
    .join('/')}`;

/**
 * RFC 9457 problem details, as `application/problem+json` whatever the contract declares (give
 * your own formatter for an error body of another shape): `type` (about:blank, its title the status's reason), `title`,
 * `status`, `detail`, `instance` (the request's path), `code`, and for a 400 the `errors`
 * extension: each with its `detail` and, in the body, its `pointer`, or the `parameter` it names.
 * @see https://www.rfc-editor.org/rfc/rfc9457
 */
export const problemDetails: ProblemFormatter = (problem, { instance }) => ({
  contentType: 'application/problem+json',
  body: {
    type: 'about:blank',
    title: STATUS_CODES[problem.status] ?? 'Error',
    status: problem.status,
    detail: problem.message,
    instance,
    code: problem.code,
    ...(problem.details.length > 0
      ? {
          errors: problem.details.map((d) =>
            d.field === 'body' || d.field.startsWith('body.')
              ? { detail: d.message, pointer: d.field === 'body' ? '' : pointerOf(d.field) }
              : { detail: d.message, parameter: d.field },
          ),
        }
      : {}),
  },
});

/** 400 with each thing wrong. */
export const invalidRequest = (details: ProblemDetail[], message = 'The request is invalid; see details.') =>
  new HttpProblem<KitProblemCode>(400, 'invalid_request', message, details);
