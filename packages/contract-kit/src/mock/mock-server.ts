import express, { type Express } from 'express';
import { XMLBuilder } from 'fast-xml-parser';
import type { OpenApiDocument } from '../contract/document.js';
import { hoistDeepSchemaRefs } from '../contract/deep-refs.js';
import { listOperations, type Operation } from '../contract/operations.js';
import { contractServer, type ContractServer } from '../server/contract-server.js';
import type { AnyHandler, HandlerResult } from '../server/handlers.js';
import { essenceOf, kindOf } from '../server/media-types.js';
import { HttpProblem } from '../server/problems.js';
import { securitySchemesOf, type Verifier } from '../server/security.js';
import { answerHeaders, notePrismBody, preferWithExample, type MockConfig } from './mock-config.js';
import { prismDocument, prismMethod, prismPath, type DeclaredTypes } from './prism-document.js';
import { startPrism, type PrismProcess } from './prism-process.js';
import { streamingMock } from './mock-streams.js';
import { ContractSchemas } from '../testing/schemas.js';

/** How {@link createMock} serves a contract: the project's MockConfig (see contract-kit.config), and these. */
export interface MockOptions extends MockConfig {
  contract: OpenApiDocument;
  /** Where the contract came from, for messages. @default 'the contract' */
  label?: string;
  /** Answer with values Prism makes from the schemas, not the contract's examples. @default false */
  dynamic?: boolean;
  /** Told of each answer as its client got it (`GET /v1/orders → 200`, with a refusal's reason when `verbose`). */
  log?: (line: string) => void;
  verbose?: boolean;
}

/** A mock of a contract: an Express app, and the Prism process behind it. */
export interface Mock {
  app: Express;
  kit: ContractServer;
  /** Stops Prism. */
  close(): Promise<void>;
}

/** The headers of Prism's answer the contract declares for its status (`headers`), with names as Prism sent them. */
function declaredHeaders(op: Operation, status: number, answer: Response): Record<string, string> {
  const raw = op.raw.responses as Record<string, { headers?: Record<string, unknown> } | undefined> | undefined;
  const response = raw?.[String(status)] ?? raw?.[`${String(status)[0]}XX`] ?? raw?.default;
  const names = Object.keys(response?.headers ?? {}).filter((name) => name.toLowerCase() !== 'content-type');
  const headers: Record<string, string> = {};
  for (const name of names) {
    const value = answer.headers.get(name);
    if (value !== null) headers[name] = value;
  }
  return headers;
}

/** A value Prism wrote as JSON, as the XML its schema's `xml.name` roots (`root` without one). */
function asXml(op: Operation, status: number, value: unknown): string {
  const response = op.responses[String(status)] ?? op.responses[`${String(status)[0]}XX`] ?? op.responses.default;
  const schema = Object.entries(response?.content ?? {}).find(([type]) => /[/+]xml$/i.test(type))?.[1].schema as
    { xml?: { name?: string } } | undefined;
  const root = schema?.xml?.name ?? 'root';
  return `<?xml version="1.0" encoding="UTF-8"?>\n${new XMLBuilder({ format: true }).build({ [root]: value })}`;
}

/** A media type of each range a contract may declare; the others (any type, application's) get JSON's. */
const IN_RANGE: Record<string, string> = {
  image: 'image/png',
  audio: 'audio/mpeg',
  video: 'video/mp4',
  text: 'text/plain',
  font: 'font/woff2',
};

/** What the mock sends for a range the contract declares (`image/png` for an image range), which is no media type to send. */
const sentForRange = (range: string) => IN_RANGE[range.split('/')[0]!.toLowerCase()] ?? 'application/json';

/** Where a forwarder finds Prism: its process, and the example a request naming none is answered with. */
interface PrismSide {
  process: () => PrismProcess;
  declared: DeclaredTypes;
  prefer: (op: Operation, index: number, prefer: string) => string;
}

/** The handler of operation `index`: Prism's answer to it, in the media type the contract declares. */
function forwarder(op: Operation, index: number, { process: prism, declared, prefer }: PrismSide): AnyHandler {
  const statuses = Object.keys(op.responses);
  const success = statuses.filter((s) => /^2\d\d$/.test(s)).sort()[0] ?? (statuses.some((s) => /^2XX$/i.test(s)) ? '200' : undefined);
  return async (_input, { request }) => {
    const headers: Record<string, string> = {};
    for (const name of ['accept', 'prefer']) {
      const value = request.headers[name];
      if (typeof value === 'string') headers[name] = value;
    }
    // Unless the client asks for another, the operation's first success (Prism may otherwise pick `default`).
    headers.prefer ??= success === undefined ? '' : `code=${success}`;
    if (headers.prefer === '') delete headers.prefer;
    else headers.prefer = prefer(op, index, headers.prefer);
    const answer = await fetch(`http://127.0.0.1:${prism().port}${prismPath(index)}`, { method: prismMethod(op).toUpperCase(), headers });
    const status = answer.status;
    const given = essenceOf(answer.headers.get('content-type') ?? undefined);
    // Prism's own errors (it found no response to give, or could not write one) are problem details of its own type.
    if (given === 'application/problem+json') {
      const text = await answer.text();
      if (text.includes('stoplight.io/prism/errors'))
        throw new HttpProblem(500, 'internal_error', `Prism answered ${status} for ${op.name}: ${text.slice(0, 300)}`);
    }
    const result: HandlerResult = { status, headers: declaredHeaders(op, status, answer) };
    if (!given || status === 204 || op.method === 'head') return result;
    const key = [String(status), `${String(status)[0]}XX`, 'default'].find((k) => declared.get(prismPath(index))?.has(`${k} ${given}`));
    const named = (key && declared.get(prismPath(index))?.get(`${key} ${given}`)) ?? given;
    const contentType = named.includes('*') ? sentForRange(named) : named;
    const text = await answer.text();
    result.contentType = contentType;
    const kind = kindOf(essenceOf(contentType) ?? contentType);
    if (kind === 'json') result.body = JSON.parse(text) as unknown;
    else if (kind === 'xml' && given === 'application/json') result.body = asXml(op, status, JSON.parse(text));
    else result.body = text;
    notePrismBody(request, kind === 'json' ? result.body : text);
    return result;
  };
}

/**
 * A mock of a contract: the kit's contract server, which routes and refuses requests as the
 * application's server does (the same code: security schemes asked for, parameters and bodies
 * checked, errors in the contract's shape, deprecation headers), with a handler per operation
 * that answers what Prism answers for it (see prismDocument). Any credential a scheme asks for
 * is accepted, with every scope. Call `start()` before the app answers.
 */
export async function createMock(options: MockOptions): Promise<Mock> {
  const { contract, label = 'the contract', dynamic = false, server = {} } = options;
  const operations = listOperations(contract, label);
  // Prism gets each operation at a path of its own: a $ref into another path's answer is made a component first.
  // A $ref into a component schema stays: Prism resolves it, and hangs on the copies hoisting makes of
  // recursive schemas reached through their properties (Azure's network contracts).
  const { document, declared, unanswerable } = prismDocument(hoistDeepSchemaRefs(contract, { intoPaths: true }) ?? contract, operations);
  const warn = server.onWarning ?? ((message: string) => console.warn(message));
  const failing = operations.filter((op) => !Object.keys(op.responses).some((status) => /^[23]/.test(status)));
  if (failing.length > 0) {
    const named = failing.map((op) => `${op.name} (${Object.keys(op.responses).join(', ') || 'none'})`);
    warn(`${label}: ${failing.length} operation(s) declare no success answer, and the mock answers what they declare: ${named.join('; ')}`);
  }
  if (unanswerable.length > 0) {
    const named = unanswerable.map((u, i) => `${u.operation} ${u.status}${i < 3 ? ` (${u.why})` : ''}`);
    warn(
      `${label}: no value its schema takes was found for ${unanswerable.length} answer(s), which Prism makes what it can of (the schema may take none): ${named.join('; ')}`,
    );
  }
  const prism = await startPrism(document, dynamic);
  const scopes = [...new Set(operations.flatMap((op) => op.security.flatMap((requirement) => Object.values(requirement).flat())))];
  const anyone: Verifier = () => ({ caller: 'mock', scopes });
  const { example } = options;
  const side: PrismSide = {
    process: () => prism,
    declared,
    // Values made from the schemas are no example: Prism picks none then.
    prefer: (op, index, prefer) =>
      example === undefined || dynamic
        ? prefer
        : preferWithExample(prefer, document, prismResponses(document, op, index), (status, examples) =>
            example({ contract, operation: op, status, examples }),
          ),
  };
  const reasons = new WeakMap<object, string>();
  let made: ContractSchemas | undefined;
  const schemas = () => (made ??= new ContractSchemas(contract));
  try {
    const kit = contractServer({
      // Each answer is an example or a value the kit checked at start, else Prism's best (named above).
      ...server,
      validateResponses: false,
      onError: (error, problem, req) => {
        reasons.set(req, [problem.message, ...problem.details.map((d) => `${d.field} ${d.message}`)].join('; '));
        server.onError?.(error, problem, req);
      },
      contract,
      label,
      handlers: Object.fromEntries(
        operations.map((op, index) => [op.name, streamingMock(contract, op, schemas, forwarder(op, index, side))]),
      ),
      security: Object.fromEntries([...securitySchemesOf(contract).keys()].map((name) => [name, anyone])),
    });
    const app = express();
    app.disable('x-powered-by');
    const { log, verbose = false } = options;
    if (log)
      app.use((req, res, next) => {
        const why = () => (verbose && reasons.has(req) ? ` (${reasons.get(req)})` : '');
        res.once('finish', () => log(`${req.method} ${req.originalUrl} → ${res.statusCode}${why()}`));
        next();
      });
    if (options.headers) app.use(answerHeaders(contract, options.headers));
    app.use(...(options.use ?? []), kit.router, kit.notFound, kit.errorHandler);
    return { app, kit, close: () => prism.stop() };
  } catch (error) {
    await prism.stop();
    throw error;
  }
}

/** An operation's responses in the document Prism was given. */
function prismResponses(document: OpenApiDocument, op: Operation, index: number): Record<string, unknown> {
  const item = document.paths?.[prismPath(index)] as Record<string, { responses?: Record<string, unknown> }> | undefined;
  return item?.[prismMethod(op)]?.responses ?? {};
}
