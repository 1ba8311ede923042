import cors from 'cors';
import type { Request, RequestHandler } from 'express';
import { originAllowed } from '../../allowed-origins.js';

/** Request headers a browser may send cross-origin besides the CORS-safelisted ones. */
const CORS_ALLOWED_HEADERS = ['Authorization', 'Content-Type', 'Idempotency-Key', 'X-Request-Id'] as const;

/** Response headers browser code may read besides the safelisted ones (Content-Type, …). */
export const CORS_EXPOSED_HEADERS = [
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'Retry-After',
  'Link',
  'Deprecation',
  'Sunset',
  'X-Request-Id',
  'Idempotent-Replayed',
  'WWW-Authenticate',
] as const;

/** How long a browser may cache a preflight's answer, in seconds. */
const CORS_MAX_AGE_SECONDS = 600;

/**
 * The CORS headers of an answer to a request from `origin` that never reached the app (Node
 * refused its headers): none unless the origin is allowed.
 */
export function corsResponseHeaders(allowed: readonly string[], origin: string | undefined): Record<string, string> {
  if (origin === undefined || !originAllowed(origin, allowed)) return { Vary: 'Origin' };
  return { 'Access-Control-Allow-Origin': origin, 'Access-Control-Expose-Headers': CORS_EXPOSED_HEADERS.join(','), Vary: 'Origin' };
}

/** A browser's preflight: OPTIONS with Origin and Access-Control-Request-Method. */
export const isPreflight = (req: Request) =>
  req.method === 'OPTIONS' && req.headers.origin !== undefined && req.headers['access-control-request-method'] !== undefined;

/**
 * CORS for the listed origins, with the maintained `cors` middleware: a preflight
 * (`OPTIONS` with `Origin` and `Access-Control-Request-Method`) from an allowed origin is answered
 * here with 204, before the key and the rate limit, as the Fetch standard expects (a browser
 * never sends credentials on a preflight); other requests from it get `Access-Control-Allow-Origin`
 * and the exposed headers, then go on. A request from any other origin gets no CORS header, so
 * the browser keeps the answer from the page; its preflight is answered 405 (app.ts, before contract-kit's 405), before the key and the limits too. No origin listed: no CORS at all. `methods` are
 * the contract's.
 */
export function corsFor(allowed: readonly string[], methods: readonly string[]): RequestHandler {
  const middleware = cors({
    origin: (origin, callback) => callback(null, origin !== undefined && originAllowed(origin, allowed)),
    methods: [...methods],
    allowedHeaders: [...CORS_ALLOWED_HEADERS],
    exposedHeaders: [...CORS_EXPOSED_HEADERS],
    maxAge: CORS_MAX_AGE_SECONDS,
    optionsSuccessStatus: 204,
  });
  return (req, res, next) => {
    if (allowed.length === 0) return next();
    // Whether the answer carries Access-Control-Allow-Origin depends on the Origin: caches must know.
    res.vary('Origin');
    // An OPTIONS without Access-Control-Request-Method is not a preflight: the contract answers it (405).
    if (req.headers.origin === undefined || (req.method === 'OPTIONS' && !isPreflight(req))) return next();
    middleware(req, res, next);
  };
}
