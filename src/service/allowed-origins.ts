// The origins CORS_ORIGINS may name and how a request's Origin is matched against them: read by
// the configuration and by the CORS middleware, so it lives apart from both.

/**
 * Origins that may call the service from a browser in development and in the sandbox: any port
 * of localhost and of 127.0.0.1 (a dev server such as Vite's picks its own).
 */
export const LOCAL_ORIGINS: readonly string[] = ['http://localhost:*', 'http://127.0.0.1:*'];

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
