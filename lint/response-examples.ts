/**
 * What makes a response of the contract self-consistent, as one set of checks for three users:
 * the lint rule `animal-store/response-examples-consistent` (lint/animal-store-rules.js) applies
 * them to every example of openapi.yaml, the mock (src/toolkit/mock/mock-answers.ts) picks and
 * dresses its answers with them, and the mock's tests apply them to what the running mock sends.
 *
 * A response is seen as a client sees it: its status, its headers and its parsed body. An
 * example's headers are those of its response, each with the header's own `example`, except where
 * the example gives its own value in `x-headers` (a 429 example says `X-RateLimit-Remaining: 0`
 * and its own `Retry-After`).
 */

/** A response as a client sees it: status, headers by name (any case), parsed body. */
export interface SeenResponse {
  status: number;
  headers: Record<string, unknown>;
  body: unknown;
}

/** The inputs of an operation that a 400's `details` can name. */
export interface OperationInputs {
  parameters: { in: string; name: string }[];
  hasRequestBody: boolean;
}

/** A resolved Example Object: `value`, and the headers it goes with in `x-headers`. */
export type ExampleObject = { value?: unknown; 'x-headers'?: Record<string, unknown>; [key: string]: unknown };

/** Follows a `$ref` of the document (or gives back a value that is not one). */
type Resolve = (value: unknown) => unknown;

type JsonObject = Record<string, unknown>;

/** The status each error code is answered with: the closed table of the contract's introduction. */
const STATUS_OF_CODE: Record<string, number> = {
  invalid_request: 400,
  unauthorized: 401,
  not_found: 404,
  method_not_allowed: 405,
  idempotency_key_in_use: 409,
  gone: 410,
  payload_too_large: 413,
  unsupported_media_type: 415,
  idempotency_key_reused: 422,
  rate_limited: 429,
  key_temporarily_banned: 429,
  request_header_fields_too_large: 431,
  internal_error: 500,
  not_implemented: 501,
  service_unavailable: 503,
};

/** "retry after 30 seconds", "banned for 600 more seconds": the wait a message states. */
const STATED_WAIT = /\b(\d+) (?:more )?seconds?\b/;
/** "Rate limit of 60 requests per minute": the limit a rate_limited message states. */
const STATED_LIMIT = /\blimit of (\d+) requests? per\b/;

const isObject = (value: unknown): value is JsonObject => value !== null && typeof value === 'object' && !Array.isArray(value);

/** A header's value from a record of headers, whatever the case of its name; undefined when absent. */
function headerOf(headers: Record<string, unknown>, name: string): unknown {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() === wanted) return value;
  return undefined;
}

/** A header value as a whole number, or null when it is absent or not one. */
function wholeNumber(value: unknown): number | null {
  if (typeof value === 'number') return Number.isInteger(value) ? value : null;
  return typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : null;
}

/** An Error body's `status` and `code`: what the contract's table says of them. */
function errorBodyProblems(error: JsonObject & { code: string }, status: number): string[] {
  const problems: string[] = [];
  if (error.status !== status) problems.push(`the Error body says status ${JSON.stringify(error.status)}, the response is ${status}`);
  const expected = STATUS_OF_CODE[error.code];
  if (expected === undefined) problems.push(`the error code ${error.code} is not in the contract's table of codes`);
  else if (expected !== status) problems.push(`the error code ${error.code} goes with status ${expected}, not ${status}`);
  if (status === 400 && !(Array.isArray(error.details) && error.details.length > 0)) {
    problems.push('a 400 Error body names each offending field in details');
  }
  return problems;
}

/**
 * What is wrong with one response: a list of sentences, empty when it agrees with itself.
 * - an Error body's `status` is the response's, and its `code` is one the contract answers
 *   with that status;
 * - a 400's Error body names at least one field in `details`;
 * - `X-RateLimit-Remaining` is at most `X-RateLimit-Limit`, and 0 on a 429;
 * - a 429 or 503 carries `Retry-After`; where the body's message states a wait ("retry after
 *   30 seconds"), `Retry-After` is that wait;
 * - a `rate_limited` message that states the limit ("limit of 60 requests per minute") agrees
 *   with `X-RateLimit-Limit`.
 */
export function responseProblems({ status, headers, body }: SeenResponse): string[] {
  const error = isObject(body) && typeof body.code === 'string' ? (body as JsonObject & { code: string }) : null;
  const problems = error ? errorBodyProblems(error, status) : [];

  const limit = wholeNumber(headerOf(headers, 'X-RateLimit-Limit'));
  const remaining = wholeNumber(headerOf(headers, 'X-RateLimit-Remaining'));
  if (limit !== null && remaining !== null && remaining > limit) {
    problems.push(`X-RateLimit-Remaining ${remaining} is more than X-RateLimit-Limit ${limit}`);
  }
  if (status === 429 && remaining !== 0) {
    problems.push(`a 429 has X-RateLimit-Remaining 0, not ${JSON.stringify(headerOf(headers, 'X-RateLimit-Remaining') ?? null)}`);
  }

  const retryAfterValue = headerOf(headers, 'Retry-After');
  const retryAfter = wholeNumber(retryAfterValue);
  if ((status === 429 || status === 503) && retryAfter === null) {
    problems.push(`a ${status} says how long to wait in Retry-After (seconds), got ${JSON.stringify(retryAfterValue ?? null)}`);
  }
  const message = typeof error?.message === 'string' ? error.message : '';
  const wait = STATED_WAIT.exec(message);
  if (wait && retryAfter !== null && retryAfter !== Number(wait[1])) {
    problems.push(`the message says ${wait[0]} but Retry-After is ${retryAfter}`);
  }
  const stated = error?.code === 'rate_limited' ? STATED_LIMIT.exec(message) : null;
  if (stated && limit !== null && limit !== Number(stated[1])) {
    problems.push(`the message states a limit of ${stated[1]} but X-RateLimit-Limit is ${limit}`);
  }
  return problems;
}

/**
 * The inputs of an operation that a 400's `details` can name: its parameters (path-level ones
 * included) and whether it takes a body. `resolve` follows a `$ref` of the document.
 */
export function operationInputs(pathItem: JsonObject | undefined, operation: JsonObject, resolve: Resolve): OperationInputs {
  const listed = (value: unknown): unknown[] => (Array.isArray(value) ? (value as unknown[]) : []);
  const parameters = [...listed(pathItem?.parameters), ...listed(operation.parameters)]
    .map((p) => resolve(p))
    .filter((p): p is { in: string; name: string } => isObject(p) && typeof p.in === 'string' && typeof p.name === 'string')
    .map((p) => ({ in: p.in, name: p.name }));
  return { parameters, hasRequestBody: operation.requestBody !== undefined };
}

/**
 * Whether a 400 `details` field (`query.limit`, `path.petId`, `header.idempotency-key`,
 * `body.name`) names an input the operation has. `request` (the request as a whole) fits any.
 */
function fieldFits(field: string, inputs: OperationInputs): boolean {
  const dot = field.indexOf('.');
  const where = dot === -1 ? field : field.slice(0, dot);
  const name = dot === -1 ? '' : field.slice(dot + 1);
  if (where === 'request') return true;
  if (where === 'body') return inputs.hasRequestBody;
  const caseless = where === 'header';
  return inputs.parameters.some((p) => p.in === where && (caseless ? p.name.toLowerCase() === name.toLowerCase() : p.name === name));
}

/**
 * The fields of a body's `details` that the operation does not have (a body field on an
 * operation without a body): an empty list when the body fits the operation.
 */
export function unfitFields(body: unknown, inputs: OperationInputs): string[] {
  if (!isObject(body) || !Array.isArray(body.details)) return [];
  return (body.details as unknown[]).map((d) => (isObject(d) ? String(d.field) : '')).filter((field) => !fieldFits(field, inputs));
}

/**
 * The headers a client gets with one example of a response: every header the response declares,
 * with the example's own value (`x-headers`) or else the header's `example`. `example` is the
 * Example Object (resolved), or undefined for a response without one.
 */
export function exampleHeaders(response: JsonObject, example: ExampleObject | undefined, resolve: Resolve): Record<string, unknown> {
  const own = isObject(example?.['x-headers']) ? example['x-headers'] : {};
  const headers: Record<string, unknown> = {};
  for (const [name, raw] of Object.entries(isObject(response.headers) ? response.headers : {})) {
    const declared = resolve(raw);
    const value = headerOf(own, name) ?? (isObject(declared) ? declared.example : undefined);
    if (value !== undefined) headers[name] = value;
  }
  return headers;
}

/** The named examples of a response's JSON body, resolved, in document order. */
export function namedExamples(response: JsonObject, resolve: Resolve): [string, ExampleObject][] {
  const content = isObject(response.content) ? response.content['application/json'] : undefined;
  const examples = isObject(content) && isObject(content.examples) ? content.examples : {};
  return Object.entries(examples).map(([name, raw]): [string, ExampleObject] => [name, resolve(raw) as ExampleObject]);
}
