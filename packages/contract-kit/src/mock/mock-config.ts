import type { ServerResponse } from 'node:http';
import type { Request, RequestHandler } from 'express';
import { resolveRef, type OpenApiDocument } from '../contract/document.js';
import type { Operation } from '../contract/operations.js';
import type { ContractServerOptions } from '../server/contract-server.js';
import { operationOf } from '../server/request-state.js';

/** The contract server's options a mock takes: all but those that make it the application (handlers, security, context). */
export type MockServerOptions = Omit<
  ContractServerOptions,
  'contract' | 'label' | 'handlers' | 'security' | 'context' | 'beforeSend' | 'validateResponses'
>;

/** An answer of the mock, as the `headers` of MockConfig is told of it before it is sent. */
export interface MockAnswer {
  contract: OpenApiDocument;
  /** The operation the request was routed to; undefined for a 404 or 405. */
  operation: Operation | undefined;
  status: number;
  /** What Prism answered (JSON parsed, anything else as text); undefined for the server's own refusals and failures. */
  body: unknown;
  /** The headers set so far, by lower-case name (Prism's declared ones, the kit's). */
  headers: Readonly<Record<string, unknown>>;
  request: Request;
}

/** A response's named examples, for the `example` of MockConfig to pick from. */
export interface ExampleChoice {
  contract: OpenApiDocument;
  operation: Operation;
  /** The status asked for (`Prefer: code=400`), or the operation's first success. */
  status: string;
  /** The named examples of its body, in the contract's order, with their values. */
  examples: { name: string; value: unknown }[];
}

/**
 * `mock` in contract-kit.config.{js,mjs,ts}: what `contract-kit mock` adds to what the contract
 * says, so that the mock answers as the application's server does.
 */
export interface MockConfig {
  /**
   * The options of the contract server in front of Prism, as the application gives them
   * (`errors`, `bodyLimitBytes`, `maxProperties`, `steps`...): it refuses with the same code.
   */
  server?: MockServerOptions;
  /** Express middleware run before the contract's router, on every request (CORS, say). */
  use?: readonly RequestHandler[];
  /** Headers set on every answer, Prism's and the server's refusals alike; null removes one. */
  headers?: (answer: MockAnswer) => Record<string, string | number | null> | undefined;
  /** The example that answers a request naming none (`Prefer: code=400`); undefined: Prism's first. */
  example?: (choice: ExampleChoice) => string | undefined;
}

/** What Prism answered each request, for the `headers` hook. */
const prismBodies = new WeakMap<object, unknown>();
export const notePrismBody = (request: Request, body: unknown) => prismBodies.set(request, body);

/** The middleware that sets `headers`' answer on every response just before its head is written. */
export function answerHeaders(contract: OpenApiDocument, headers: NonNullable<MockConfig['headers']>): RequestHandler {
  return (req, res, next) => {
    const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse;
    res.writeHead = ((status: number, ...rest: unknown[]) => {
      const answer = { contract, operation: operationOf(req), status, body: prismBodies.get(req), headers: res.getHeaders(), request: req };
      for (const [name, value] of Object.entries(headers(answer) ?? {})) {
        if (value === null) res.removeHeader(name);
        else res.setHeader(name, String(value));
      }
      return writeHead(status, ...rest);
    }) as typeof res.writeHead;
    next();
  };
}

/** A Prefer header's parts: `code=429, example=X` → {code: '429', example: 'X'}. */
function preferParts(header: string): Map<string, string> {
  const parts = new Map<string, string>();
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq > 0) parts.set(part.slice(0, eq).trim().toLowerCase(), part.slice(eq + 1).trim());
  }
  return parts;
}

/**
 * `prefer` with the example `pick` chooses among those Prism has for the status it asks for, where
 * it names none; `responses` are the operation's in the document Prism was given.
 */
export function preferWithExample(
  prefer: string,
  prism: OpenApiDocument,
  responses: Record<string, unknown>,
  pick: (status: string, examples: ExampleChoice['examples']) => string | undefined,
): string {
  const parts = preferParts(prefer);
  const status = parts.get('code');
  if (status === undefined || parts.has('example')) return prefer;
  const response = resolveRef<{ content?: Record<string, { examples?: Record<string, unknown> }> } | undefined>(prism, responses[status]);
  const media = Object.values(response?.content ?? {}).find((m) => m.examples !== undefined);
  const examples = Object.entries(media?.examples ?? {}).map(([name, raw]) => ({
    name,
    value: resolveRef<{ value?: unknown } | undefined>(prism, raw)?.value,
  }));
  const name = examples.length > 0 ? pick(status, examples) : undefined;
  return name === undefined || !examples.some((e) => e.name === name) ? prefer : `${prefer}, example=${name}`;
}
