import cors from 'cors';
import type { RequestHandler } from 'express';

/**
 * Origins that may call the service from a browser in development and in the sandbox: any port
 * of localhost and of 127.0.0.1 (a dev server such as Vite's picks its own).
 */
export const LOCAL_ORIGINS: readonly string[] = ['http://localhost:*', 'http://127.0.0.1:*'];

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
 * Parses one allowed origin as CORS_ORIGINS writes it: `scheme://host[:port]`, exactly as a
 * browser sends it in `Origin` (no path, no trailing slash), or `scheme://host:*` for every port
 * of that host. Throws with the reason otherwise.
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
  if (serialized !== candidate.toLowerCase() || url.username !== '' || url.password !== '') {
    throw new Error(`"${raw}" must be an origin alone (scheme, host and port, lower case, no path or trailing slash), as browsers send it`);
  }
  return raw.toLowerCase();
}

/** Whether `origin` (a request's Origin header) is one of `allowed` (parsed by {@link parseAllowedOrigin}). */
export function originAllowed(origin: string, allowed: readonly string[]): boolean {
  for (const entry of allowed) {
    if (entry === origin) return true;
    if (entry.endsWith(':*')) {
      const prefix = entry.slice(0, -1);
      // A port alone may follow ("http://localhost:*" must not let in "http://localhost:80.evil.test"),
      // or nothing: the scheme's default port, which browsers leave out.
      if (origin === prefix.slice(0, -1)) return true;
      const port = origin.startsWith(prefix) ? origin.slice(prefix.length) : '';
      if (/^[1-9]\d{0,4}$/.test(port) && Number(port) <= 65_535) return true;
    }
  }
  return false;
}

/**
 * The CORS headers of an answer to a request from `origin` that never reached the app (Node
 * refused its headers): none unless the origin is allowed.
 */
export function corsResponseHeaders(allowed: readonly string[], origin: string | undefined): Record<string, string> {
  if (origin === undefined || !originAllowed(origin, allowed)) return { Vary: 'Origin' };
  return { 'Access-Control-Allow-Origin': origin, 'Access-Control-Expose-Headers': CORS_EXPOSED_HEADERS.join(','), Vary: 'Origin' };
}

/**
 * CORS for the listed origins, with the maintained `cors` middleware: a preflight
 * (`OPTIONS` with `Origin` and `Access-Control-Request-Method`) from an allowed origin is answered
 * here with 204, before the key and the rate limit, as the Fetch standard expects (a browser
 * never sends credentials on a preflight); other requests from it get `Access-Control-Allow-Origin`
 * and the exposed headers, then go on. A request from any other origin gets no CORS header, so
 * the browser keeps the answer from the page. No origin listed: no CORS at all. `methods` are
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
    if (allowed.length === 0) {
      next();
      return;
    }
    // Whether the answer carries Access-Control-Allow-Origin depends on the Origin: caches must know.
    res.vary('Origin');
    if (req.headers.origin === undefined) {
      next();
      return;
    }
    // An OPTIONS without Access-Control-Request-Method is not a preflight: the contract answers it (405).
    if (req.method === 'OPTIONS' && req.headers['access-control-request-method'] === undefined) {
      next();
      return;
    }
    middleware(req, res, next);
  };
}
