import cors from 'cors';
import type { Request, RequestHandler } from 'express';
import { resolveRef, type OpenApiDocument } from '../contract/document.js';
import { listOperations, type Operation } from '../contract/operations.js';
import { securitySchemesOf } from './security.js';

/** What a browser may be allowed to do across origins with a contract's operations, as the contract says. */
export interface CrossOrigin {
  /** The methods of its operations. */
  methods: string[];
  /** Request headers it reads: header parameters, Authorization and apiKey headers of its schemes, Content-Type for a body. */
  requestHeaders: string[];
  /** Response headers it declares. */
  responseHeaders: string[];
}

/** The methods and headers of `operations` (the contract's) that CORS must allow a page to send and to read. */
export function crossOriginOf(doc: OpenApiDocument, operations: readonly Operation[] = listOperations(doc)): CrossOrigin {
  const schemes = securitySchemesOf(doc);
  const requestHeaders = new Set<string>();
  const responseHeaders = new Set<string>();
  for (const op of operations) {
    for (const p of op.parameters) if (p.in === 'header') requestHeaders.add(p.name);
    for (const d of op.dispatch) if (d.in === 'header') requestHeaders.add(d.name);
    if (op.requestBody) requestHeaders.add('Content-Type');
    for (const name of op.security.flatMap(Object.keys)) {
      const scheme = schemes.get(name);
      if (scheme?.type === 'apiKey' && scheme.in === 'header') requestHeaders.add(scheme.name);
      else if (scheme && scheme.type !== 'apiKey' && scheme.type !== 'mutualTLS') requestHeaders.add('Authorization');
    }
    const responses = (op.raw.responses ?? {}) as Record<string, unknown>;
    for (const response of Object.values(responses)) {
      const headers = resolveRef<{ headers?: Record<string, unknown> }>(doc, response)?.headers ?? {};
      for (const name of Object.keys(headers)) if (name.toLowerCase() !== 'content-type') responseHeaders.add(name);
    }
  }
  const methods = [...new Set(operations.map((op) => op.method.toUpperCase()))];
  return { methods, requestHeaders: [...requestHeaders], responseHeaders: [...responseHeaders] };
}

/**
 * Whether `origin` (a request's Origin) is one of `allowed`: `scheme://host[:port]` exactly, or
 * `scheme://host:*`, which takes any port of the host and its default one, and nothing else.
 */
export function originAllowed(origin: string, allowed: readonly string[]): boolean {
  for (const entry of allowed) {
    if (entry === origin) return true;
    if (!entry.endsWith(':*')) continue;
    const prefix = entry.slice(0, -1);
    // "http://localhost:*" must not let in "http://localhost:80.evil.test".
    if (origin === prefix.slice(0, -1)) return true;
    const port = origin.startsWith(prefix) ? origin.slice(prefix.length) : '';
    if (/^[1-9]\d{0,4}$/.test(port) && Number(port) <= 65_535) return true;
  }
  return false;
}

/**
 * Parses an allowed origin as {@link originAllowed} takes it, lower-cased: `scheme://host[:port]`
 * as a browser sends it (no path, no trailing slash), or `scheme://host:*`.
 * @throws Error saying what is wrong
 */
export function parseAllowedOrigin(raw: string): string {
  const anyPort = raw.endsWith(':*');
  const candidate = anyPort ? `${raw.slice(0, -2)}:1` : raw;
  if (candidate.includes('*')) throw new Error(`"${raw}": only the port may be a wildcard (host:*); list each host`);
  let url: URL;
  try {
    url = new URL(candidate);
  } catch {
    throw new Error(`"${raw}" is not an origin such as https://app.example.com or http://localhost:*`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`"${raw}" must start with http:// or https://`);
  const serialized = anyPort ? `${url.protocol}//${url.hostname}:1` : url.origin;
  if (serialized !== candidate.toLowerCase() || url.username !== '' || url.password !== '')
    throw new Error(`"${raw}" must be an origin alone (scheme, host and port, lower case, no path or trailing slash), as browsers send it`);
  return raw.toLowerCase();
}

/** What {@link contractCors} allows. */
export interface CorsOptions {
  /** Origins whose pages may call (see originAllowed); none: no CORS header at all. */
  origins: readonly string[];
  /** The contract servers whose operations a page calls: their crossOrigin lists are allowed. */
  contracts: readonly { crossOrigin: CrossOrigin }[];
  /** Request headers allowed besides the contracts' (a request id the application reads). */
  allowHeaders?: readonly string[];
  /** Response headers exposed besides the contracts' (those of answers no operation declares). */
  exposeHeaders?: readonly string[];
  /** How long a browser may keep a preflight's answer. @default 600 */
  maxAgeSeconds?: number;
}

/** A browser's preflight: OPTIONS with Origin and Access-Control-Request-Method. */
export const isPreflight = (req: Request) =>
  req.method === 'OPTIONS' && req.headers.origin !== undefined && req.headers['access-control-request-method'] !== undefined;

/**
 * CORS as the contracts say, with the maintained `cors` middleware (mount it first): a preflight
 * from an allowed origin is answered 204 with the contracts' methods and request headers, before
 * any authentication (a browser sends no credentials on it); other requests from it get
 * `Access-Control-Allow-Origin` and every response header the contracts declare, exposed. Other
 * origins get no CORS header, and their preflights go on to the router (405). `headersFor` gives
 * the CORS headers of an answer made outside Express (serve's refusalHeaders).
 */
export function contractCors(options: CorsOptions): {
  middleware: RequestHandler;
  headersFor: (origin?: string) => Record<string, string>;
} {
  const { origins } = options;
  const lists = options.contracts.map((c) => c.crossOrigin);
  const unique = (names: string[]) => [...new Map(names.map((n) => [n.toLowerCase(), n])).values()];
  const exposed = unique([...lists.flatMap((l) => l.responseHeaders), ...(options.exposeHeaders ?? [])]);
  const corsMiddleware = cors({
    origin: (origin, callback) => callback(null, origin !== undefined && originAllowed(origin, origins)),
    methods: [...new Set(lists.flatMap((l) => l.methods))],
    allowedHeaders: unique([...lists.flatMap((l) => l.requestHeaders), ...(options.allowHeaders ?? [])]),
    exposedHeaders: exposed,
    maxAge: options.maxAgeSeconds ?? 600,
    optionsSuccessStatus: 204,
  });
  const middleware: RequestHandler = (req, res, next) => {
    if (origins.length === 0) return next();
    // Whether the answer carries Access-Control-Allow-Origin depends on the Origin: caches must know.
    res.vary('Origin');
    // An OPTIONS without Access-Control-Request-Method is not a preflight: the contract answers it (405).
    if (req.headers.origin === undefined || (req.method === 'OPTIONS' && !isPreflight(req))) return next();
    corsMiddleware(req, res, next);
  };
  const headersFor = (origin?: string): Record<string, string> => {
    if (origins.length === 0) return {};
    if (origin === undefined || !originAllowed(origin, origins)) return { Vary: 'Origin' };
    return { 'Access-Control-Allow-Origin': origin, 'Access-Control-Expose-Headers': exposed.join(','), Vary: 'Origin' };
  };
  return { middleware, headersFor };
}
