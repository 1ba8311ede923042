import { createServer, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isDeepStrictEqual } from 'node:util';
import { exampleHeaders, namedExamples, operationInputs, unfitFields } from '../../../lint/response-examples.js';
import { ApiError } from '../../service/http/errors/api-error.js';
import { InvalidRequestError } from '../../service/http/errors/invalid-request-error.js';
import { parseStrictJson } from '../../service/http/middleware/json-body.js';
import { parameterProblems, strictParametersOf, type StrictParameters } from '../../service/http/middleware/strict-parameters.js';
import { PathMatcher } from '../../service/http/routing.js';
import { loadSpec, resolveRef, SPEC_PATH } from '../../contract/load-spec.js';
import { basePathOf, deprecationHeaders, listOperations, type OperationInfo } from '../../contract/operations.js';
import { startPrism } from './prism-process.js';
import { prismViolationsToError, problemToError, withoutHeaderViolation, type ErrorBody } from './prism-translation.js';

/** Options of {@link startMockServer}. */
export interface MockServerOptions {
  /** Port to listen on; 0 picks a free one. @default 4010 */
  port?: number;
  /** Address to listen on. @default '127.0.0.1' */
  host?: string;
  /** Generate response bodies from the schemas instead of answering with the named examples. @default false */
  dynamic?: boolean;
  /** The contract to serve. @default openapi.yaml */
  specPath?: string;
  /** Where Prism's request log goes (never its start-up lines); `null` drops it. @default null */
  log?: ((line: string) => void) | null;
  /** How long to wait for Prism to start, in milliseconds. @default 30000 */
  startTimeoutMs?: number;
}

/** A running mock server. */
export interface MockServer {
  /** Base URL of the API, with the version segment (`http://127.0.0.1:4010/v1`). */
  url: string;
  port: number;
  /** Stops the proxy and Prism. */
  close(): Promise<void>;
}

/** What the mock knows of one operation of the contract, worked out once. */
interface MockOperation {
  info: OperationInfo;
  /** Its responses by status, resolved. */
  responses: Record<string, Record<string, unknown>>;
  inputs: ReturnType<typeof operationInputs>;
  strict: StrictParameters;
  /** The Deprecation, Sunset and Link headers of a deprecated operation, else null. */
  deprecation: Record<string, string> | null;
}

type ResponseHeaders = Record<string, string | string[] | undefined>;

/** Prism's Prefer header as its parts: `code=429, example=X` → {code: '429', example: 'X'}. */
function preferParts(header: string | undefined): Map<string, string> {
  const parts = new Map<string, string>();
  for (const part of (header ?? '').split(',')) {
    const eq = part.indexOf('=');
    if (eq > 0) parts.set(part.slice(0, eq).trim().toLowerCase(), part.slice(eq + 1).trim());
  }
  return parts;
}

/** The request's query string as the server reads it: a string per name, an array for a repeated one. */
function queryOf(search: string): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  const params = new URLSearchParams(search);
  for (const name of new Set(params.keys())) {
    const values = params.getAll(name);
    query[name] = values.length === 1 ? values[0]! : values;
  }
  return query;
}

/** Whether Prism would take the request as authenticated (any bearer token); otherwise it answers 401 first, as the server does. */
const hasBearer = (headers: IncomingHttpHeaders) => /^Bearer\s+\S/i.test(headers.authorization ?? '');

/**
 * Starts Prism on the contract behind a thin proxy that makes it answer like the real server:
 * - paths under the version segment (`/v1`);
 * - invalid requests refused with a `400` Error body naming each field in the server's words,
 *   and the requests the server refuses before validating (integers not in plain digits,
 *   repeated or unknown query parameters, bodies JSON.parse would change) refused the same way;
 *   Prism's own errors as Error bodies;
 * - `Prefer: code=N` without an example answered with the first example of that response that
 *   fits the operation (a 400 naming only inputs the operation has);
 * - the headers an example goes with (its `x-headers`: a 429 with `X-RateLimit-Remaining: 0`
 *   and the `Retry-After` its message states);
 * - `Deprecation`, `Sunset` and a successor `Link` on every response of a deprecated operation,
 *   from the operation's own `x-deprecated-at`, `x-sunset` and `x-successor`, and on no response
 *   of any other operation.
 */
export async function startMockServer(options: MockServerOptions = {}): Promise<MockServer> {
  const specPath = options.specPath ?? SPEC_PATH;
  const host = options.host ?? '127.0.0.1';
  const doc = loadSpec(specPath);
  const basePath = basePathOf(doc);
  const resolve = (value: unknown) => resolveRef<Record<string, unknown>>(doc, value);
  const headerExample = (name: string): string => {
    const header = resolveRef<{ example?: unknown }>(doc, doc.components?.headers?.[name]);
    if (header?.example === undefined) throw new Error(`components.headers.${name} has no example`);
    return String(header.example);
  };
  const commonHeaders: Record<string, string> = {
    'x-ratelimit-limit': headerExample('X-RateLimit-Limit'),
    'x-ratelimit-remaining': headerExample('X-RateLimit-Remaining'),
    'x-ratelimit-reset': headerExample('X-RateLimit-Reset'),
    'x-request-id': headerExample('X-Request-Id'),
  };
  const operations = listOperations(doc);
  const paths = new PathMatcher(operations, basePath);
  const mockOperations = new Map<OperationInfo, MockOperation>();
  const parameterNames = new Map<string, string>();
  for (const info of operations) {
    const pathItem = doc.paths[info.path]!;
    const operation = pathItem[info.method] as Record<string, unknown>;
    const responses: Record<string, Record<string, unknown>> = {};
    for (const [status, raw] of Object.entries((operation.responses as Record<string, unknown>) ?? {})) responses[status] = resolve(raw);
    const inputs = operationInputs(pathItem, operation, resolve);
    for (const p of inputs.parameters) parameterNames.set(p.name.toLowerCase(), p.name);
    mockOperations.set(info, {
      info,
      responses,
      inputs,
      strict: strictParametersOf(doc, info),
      deprecation: deprecationHeaders(info, basePath),
    });
  }

  /** The example of a response Prism answered with, found by its body. */
  const exampleSent = (response: Record<string, unknown> | undefined, raw: Buffer) => {
    if (!response || raw.length === 0) return undefined;
    let body: unknown;
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch {
      return undefined;
    }
    return namedExamples(response, resolve).find(([, example]) => isDeepStrictEqual(example?.value, body))?.[1];
  };

  /**
   * `Prefer: code=N` without an example: names the first example of that response that fits
   * the operation, so that a 400 on GET /pets names a query parameter, not a body field.
   */
  const preferFitting = (prefer: string | undefined, op: MockOperation | undefined): string | undefined => {
    const parts = preferParts(prefer);
    const code = parts.get('code');
    if (options.dynamic || !op || code === undefined || parts.has('example')) return prefer;
    const response = op.responses[code];
    if (!response) return prefer;
    const fitting = namedExamples(response, resolve).find(([, example]) => unfitFields(example?.value, op.inputs).length === 0);
    return fitting ? `${prefer}, example=${fitting[0]}` : prefer;
  };

  /** The headers of an operation's response as the server would send them (see startMockServer). */
  const dressHeaders = (headers: ResponseHeaders, op: MockOperation | undefined, status: number, raw: Buffer) => {
    const example = exampleSent(op?.responses[String(status)], raw);
    for (const [name, value] of Object.entries((example?.['x-headers'] as Record<string, unknown> | undefined) ?? {})) {
      headers[name.toLowerCase()] = String(value);
    }
    const sentDeprecation = headers.deprecation;
    delete headers.deprecation;
    delete headers.sunset;
    if (typeof headers.link === 'string' && /rel="?successor-version"?/.test(headers.link)) delete headers.link;
    for (const [name, value] of Object.entries(op?.deprecation ?? {})) headers[name.toLowerCase()] = value;
    // Prism marks a deprecated operation's responses with `Deprecation: true`, and reports its
    // own value as breaking the contract's header; the value it reported is gone.
    const violations = headers['sl-violations'];
    if (sentDeprecation !== undefined && typeof violations === 'string') {
      const rest = withoutHeaderViolation(violations, 'deprecation');
      if (rest === null) delete headers['sl-violations'];
      else headers['sl-violations'] = rest;
    }
  };

  const args = ['mock', specPath];
  if (options.dynamic) args.push('--dynamic');
  const prism = await startPrism(args, { log: options.log, startTimeoutMs: options.startTimeoutMs });
  const prismPort = prism.port;
  const stopPrism = prism.stop;

  const sendError = (res: ServerResponse, body: ErrorBody, headers: Record<string, string> = {}) => {
    const text = JSON.stringify(body);
    res.writeHead(body.status, {
      ...commonHeaders,
      ...headers,
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(text)),
    });
    res.end(text);
  };

  /** The 400 the server answers before validating, or null when it would go on to validate. */
  const refusedBeforeValidation = (
    req: IncomingMessage,
    op: MockOperation,
    body: Buffer,
    rawParams: Record<string, string>,
    query: Record<string, string | string[]>,
  ): ErrorBody | null => {
    try {
      if (op.info.hasRequestBody && body.length > 0 && /^application\/json\s*(;|$)/i.test(req.headers['content-type'] ?? ''))
        parseStrictJson(body);
      const pathParams: Record<string, string> = {};
      for (const [name, value] of Object.entries(rawParams)) pathParams[name] = decodeURIComponent(value);
      const details = parameterProblems(op.strict, query, pathParams);
      return details.length > 0 ? new InvalidRequestError(details).toBody() : null;
    } catch (error) {
      if (error instanceof ApiError) return error.toBody();
      // As the server's error handler answers a path that does not decode (`/pets/%ZZ`).
      if (error instanceof URIError) return new InvalidRequestError([{ field: 'path', message: 'is not valid percent-encoding' }]).toBody();
      throw error;
    }
  };

  const forward = (req: IncomingMessage, res: ServerResponse, body: Buffer, url: string) => {
    const queryAt = url.indexOf('?');
    const pathname = queryAt === -1 ? url : url.slice(0, queryAt);
    const query = queryOf(queryAt === -1 ? '' : url.slice(queryAt + 1));
    const match = paths.match(pathname);
    const info = match?.byMethod.get(req.method ?? 'GET');
    const op = info && mockOperations.get(info);
    // The server's own refusals of an invalid request, unless Prism answers first (no key: 401)
    // or the client asked for another answer (`Prefer: code=429` is answered as asked).
    const preferHeader = [req.headers.prefer ?? []].flat().join(', ') || undefined;
    const asked = preferParts(preferHeader).get('code');
    const validates = op !== undefined && hasBearer(req.headers) && (asked === undefined || asked === '400' || asked.startsWith('2'));
    if (validates && match) {
      const refused = refusedBeforeValidation(req, op, body, match.rawParams, query);
      if (refused) return sendError(res, refused, op.deprecation ?? {});
    }
    const unknownQuery = validates
      ? Object.keys(query).filter((name) => !op.inputs.parameters.some((p) => p.in === 'query' && p.name === name))
      : [];
    const prefer = preferFitting(preferHeader, op);
    const upstream = httpRequest(
      {
        host: '127.0.0.1',
        port: prismPort,
        method: req.method,
        path: url.slice(basePath.length) || '/',
        headers: { ...req.headers, host: `127.0.0.1:${prismPort}`, ...(prefer === undefined ? {} : { prefer }) },
      },
      (upRes) => {
        const chunks: Buffer[] = [];
        upRes.on('data', (c: Buffer) => chunks.push(c));
        upRes.on('end', () => {
          const headers: ResponseHeaders = { ...upRes.headers };
          const status = upRes.statusCode ?? 500;
          const raw = Buffer.concat(chunks);
          dressHeaders(headers, op, status, raw);
          let translated =
            prismViolationsToError(status, headers['sl-violations'], parameterNames) ??
            problemToError(status, headers['content-type'] as string | undefined, raw);
          // The server's validator refuses a query parameter the operation does not declare
          // before it checks anything else (in express-openapi-validator's words); Prism ignores it.
          if (unknownQuery.length > 0 && (status < 300 || translated?.code === 'invalid_request')) {
            translated = new InvalidRequestError(
              unknownQuery.map((name) => ({ field: `query.${name}`, message: `Unknown query parameter '${name}'` })),
            ).toBody();
          }
          if (translated) {
            const keep: Record<string, string> = {};
            for (const [k, v] of Object.entries(headers)) {
              if (typeof v === 'string' && k !== 'content-type' && k !== 'content-length') keep[k] = v;
            }
            sendError(res, translated, keep);
            return;
          }
          delete headers['content-length'];
          delete headers['transfer-encoding'];
          res.writeHead(status, { ...headers, 'content-length': String(raw.length) });
          res.end(raw);
        });
      },
    );
    upstream.on('error', (error) => {
      sendError(
        res,
        { code: 'service_unavailable', message: `The mock backend is unavailable: ${error.message}`, status: 503 },
        { 'Retry-After': '1' },
      );
    });
    upstream.end(body);
  };

  const proxy = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = req.url ?? '/';
    if (url !== basePath && !url.startsWith(`${basePath}/`) && !url.startsWith(`${basePath}?`)) {
      req.resume();
      sendError(res, {
        code: 'not_found',
        message: `No route ${req.method} ${url.split('?')[0]}; every path is under ${basePath}.`,
        status: 404,
      });
      return;
    }
    // The body is read whole before it is passed on: the server refuses some bodies before
    // validating them, and the mock must see them to refuse them alike.
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => forward(req, res, Buffer.concat(chunks), url));
  });

  const requestedPort = options.port ?? 4010;
  await new Promise<void>((done, reject) => {
    proxy.once('error', async (error: NodeJS.ErrnoException) => {
      await stopPrism();
      reject(
        error.code === 'EADDRINUSE' ? new Error(`Port ${requestedPort} on ${host} is already in use; pick another with --port.`) : error,
      );
    });
    proxy.listen(requestedPort, host, () => done());
  });
  const { port } = proxy.address() as AddressInfo;
  const shownHost = host.includes(':') ? `[${host}]` : host;

  return {
    url: `http://${shownHost}:${port}${basePath}`,
    port,
    close: async () => {
      const closed = new Promise<void>((done) => proxy.close(() => done()));
      proxy.closeAllConnections();
      await closed;
      await stopPrism();
    },
  };
}
