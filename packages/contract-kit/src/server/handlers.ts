import type { Request, Response } from 'express';
import { parse as parseCookies } from 'cookie';
import type { Operation, Parameter } from '../contract/operations.js';
import { essenceOf, kindOf } from './media-types.js';
import { HttpProblem, type KitProblemCode } from './problems.js';
import type { RequestState } from './request-state.js';

/** The validated request as a handler gets it: parameters by the contract's names, typed as their schemas say. */
export interface HandlerInput {
  path: Record<string, unknown>;
  query: Record<string, unknown>;
  headers: Record<string, unknown>;
  cookies: Record<string, unknown>;
  /**
   * JSON: the value; a form: its fields; multipart: its fields and files (UploadedFile); XML and
   * text: the text; a stream (OpenAPI 3.2 `itemSchema`): an async iterable of its items, each
   * checked as it is read; other media types: the bytes.
   */
  body: unknown;
  /** The media type the body came in (`application/json`), or undefined without a body. */
  contentType: string | undefined;
}

/** A header's value as its schema types it: sent as text (`true`, `42`). */
type HeaderValue = string | number | boolean;

/** What a handler answers: a status its operation declares, with that status's headers and body. */
export interface HandlerResult {
  status: number | `${number}`;
  headers?: Record<string, HeaderValue | readonly HeaderValue[] | undefined>;
  /** The media type of `body`, when the status declares more than one (the first declared otherwise). */
  contentType?: string;
  /**
   * JSON media types: a value sent as JSON; text and XML: a string; other media types: bytes or
   * a string; a stream (OpenAPI 3.2: a media type with `itemSchema`): an async iterable (or an
   * array) of items. None for a status without content.
   */
  body?: unknown;
}

/** What a handler gets besides its input: the operation, who called, and what the application adds. */
export interface KitContext<Caller = unknown> {
  operation: Operation;
  /** The caller the operation's security found (undefined for a public operation). */
  caller: Caller | undefined;
  /** The caller found by each scheme of the alternative that held. */
  callers: Record<string, Caller>;
  /** The OAuth 2 scopes the credentials granted. */
  scopes: readonly string[];
  request: Request;
  response: Response;
  /**
   * Aborted when the client goes away before the answer is complete, or the server ends a
   * stream as it stops: give it to what a handler or a streamed answer waits on.
   */
  signal: AbortSignal;
}

/**
 * A handler as the kit calls it: any handler of an operation (a TypedHandler too, whose input is
 * narrower) is one. Declared as a method, whose parameters TypeScript compares both ways.
 */
export type AnyHandler<Context = unknown> = {
  handle(input: HandlerInput, context: KitContext & Context): Promise<HandlerResult> | HandlerResult;
}['handle'];

/** The kit's part of a handler's context (KitContext), its signal made on its first use: most handlers never wait on it. */
export class HandlerContext implements KitContext {
  readonly caller: unknown;
  readonly callers: Record<string, unknown>;
  readonly scopes: readonly string[];
  private aborts: AbortController | undefined;

  constructor(
    readonly operation: Operation,
    authentication: { caller?: unknown; callers?: Record<string, unknown>; scopes?: readonly string[] } | undefined,
    readonly request: Request,
    readonly response: Response,
  ) {
    this.caller = authentication?.caller;
    this.callers = authentication?.callers ?? {};
    this.scopes = authentication?.scopes ?? [];
  }

  get signal(): AbortSignal {
    return this.controller().signal;
  }

  /** What aborts the signal: the client going away before the answer is complete, or the end of its stream. */
  controller(): AbortController {
    if (!this.aborts) {
      const made = (this.aborts = new AbortController());
      const { response } = this;
      // A client that went away before the signal was first asked for has it aborted at once.
      if ((response.closed || response.destroyed) && !response.writableFinished) made.abort();
      else response.once('close', () => !response.writableFinished && made.abort());
    }
    return this.aborts;
  }
}

/** Where a context the application gave holds the kit's part. */
const KIT = Symbol('contract-kit context');

/** The signal of a context the application gave (see contextOf). */
function signalOfContext(this: { [KIT]: HandlerContext }): AbortSignal {
  return this[KIT].signal;
}

/**
 * A handler's context: what the application's `context` gave, with the kit's fields added. An
 * object it gives anew for each request (a class's, whose getters may read its private fields)
 * gets them itself; one it gave before, which another request may still be using, is not
 * changed again: the fields go on an object that inherits from it, and the application is told.
 */
export function contextOf(warn: (message: string) => void) {
  const given = new WeakSet<object>();
  let warned = false;
  return (own: object, kit: HandlerContext): KitContext => {
    if (given.has(own)) {
      if (!warned) {
        warned = true;
        warn(
          "the context function gives each request the same object, to which the kit added the first request's caller and request: return a new one each time (() => ({ ...shared }))",
        );
      }
      return sharedContext(own, kit);
    }
    given.add(own);
    const { operation, caller, callers, scopes, request, response } = kit;
    Object.assign(own, { operation, caller, callers, scopes, request, response, [KIT]: kit });
    // One getter for every context: a getter of its own would give each context a shape of its own in V8 (a third of the throughput).
    return Object.defineProperty(own, 'signal', { get: signalOfContext, enumerable: true }) as KitContext;
  };
}

/** The kit's fields of a context, which a context given before holds for an earlier request. */
const KIT_FIELDS = new Set<PropertyKey>(['operation', 'caller', 'callers', 'scopes', 'request', 'response', 'signal']);

/**
 * A context over an object the application gave before (see contextOf), left as it is: the kit's
 * fields come from this request, the rest from the object, its getters and methods run on the
 * object itself (so a class's private fields work).
 */
function sharedContext(own: object, kit: HandlerContext): KitContext {
  return new Proxy(own, {
    get(target, key) {
      if (KIT_FIELDS.has(key)) return (kit as unknown as Record<PropertyKey, unknown>)[key];
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
    has: (target, key) => KIT_FIELDS.has(key) || key in target,
  }) as KitContext;
}

/** A scalar parameter's text as its type says. */
function scalar(value: string, type: unknown): unknown {
  if (type === 'integer' || type === 'number') return Number(value);
  if (type === 'boolean') return value === 'true';
  return value;
}

/**
 * A parameter's text as its schema types it (the validator has checked it fits): numbers and
 * booleans as such; an array from a repeated query parameter, or from `a,b` (a header, a path
 * parameter, a query or cookie parameter with `explode: false`).
 */
function typed(value: unknown, parameter: Parameter): unknown {
  if (parameter.type !== 'array') return typeof value === 'string' ? scalar(value, parameter.type) : value;
  const items = (parameter.schema as { items?: { type?: unknown } } | undefined)?.items?.type;
  const exploded = (parameter.in === 'query' || parameter.in === 'cookie') && parameter.explode;
  const list = Array.isArray(value) ? (value as string[]) : typeof value === 'string' ? (exploded ? [value] : value.split(',')) : [];
  return list.map((item) => scalar(item, items));
}

/** The handler's input: each declared parameter typed, the body as read (with a multipart body's files). */
export function inputOf(req: Request, state: RequestState): HandlerInput {
  const input: HandlerInput = { path: {}, query: {}, headers: {}, cookies: {}, body: undefined, contentType: undefined };
  const query = req.query as Record<string, unknown>;
  let cookies: Record<string, string | undefined> | undefined;
  for (const p of state.operation.parameters) {
    let value: unknown;
    if (p.in === 'path') value = state.params[p.name];
    else if (p.in === 'query') value = query[p.name];
    else if (p.in === 'header') value = req.headers[p.name.toLowerCase()];
    else value = (cookies ??= parseCookies(req.headers.cookie ?? ''))[p.name];
    if (value !== undefined) input[p.in === 'cookie' ? 'cookies' : p.in === 'header' ? 'headers' : p.in][p.name] = typed(value, p);
  }
  if (state.items) {
    input.contentType = essenceOf(req.headers['content-type']);
    input.body = state.items;
  } else if (state.operation.requestBody && req.body !== undefined) {
    input.contentType = essenceOf(req.headers['content-type']);
    input.body = Object.keys(state.files).length > 0 ? { ...(req.body as object), ...state.files } : req.body;
  }
  return input;
}

/** The media types an operation declares for a status: the status, else its range (`4XX`), else `default`. */
export function declaredContent(op: Operation, status: number): string[] {
  const response = op.responses[String(status)] ?? op.responses[`${String(status)[0]}XX`] ?? op.responses.default;
  return Object.keys(response?.content ?? {});
}

/** Sets the status and the headers a handler answered; the status. */
export function setStatus(res: Response, result: HandlerResult): number {
  const status = Number(result.status);
  for (const [name, value] of Object.entries(result.headers ?? {})) {
    if (value !== undefined) res.setHeader(name, Array.isArray(value) ? value.map(String) : String(value));
  }
  res.status(status);
  return status;
}

/**
 * Sends what a handler answered: its headers; no body for a status without content; JSON media
 * types as JSON (the validator checks them against the contract); text and XML as text; other
 * media types as bytes. The media type is the one the handler names, else the first its status
 * declares.
 */
export function send(res: Response, op: Operation, result: HandlerResult): void {
  const status = setStatus(res, result);
  if (result.body === undefined) return void res.end();
  const declared = declaredContent(op, status);
  const named = result.contentType ?? declared[0] ?? 'application/json';
  // A range the contract declares (`*/*`, `application/*`) is no media type to send: JSON's is.
  const contentType = named.includes('*') ? 'application/json' : named;
  const essence = essenceOf(contentType) ?? contentType;
  if (kindOf(essence) === 'json') {
    // Without a Content-Type, res.json sends `application/json; charset=utf-8`, and a status
    // declaring one media type is validated against it whatever the request accepts: naming it
    // again costs a media-type lookup here and a parse of the header in the validator.
    if (contentType !== 'application/json' || declared.length > 1 || res.hasHeader('Content-Type')) res.type(contentType);
    return void res.json(result.body);
  }
  res.type(contentType);
  res.send(typeof result.body === 'string' ? result.body : Buffer.from(result.body as Uint8Array));
}

/** The 501 of an operation without a handler. */
export const notImplemented = (op: Operation) =>
  new HttpProblem<KitProblemCode>(501, 'not_implemented', `${op.method.toUpperCase()} ${op.path} (${op.name}) is not implemented yet.`);
