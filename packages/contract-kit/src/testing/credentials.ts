import type { SecurityScheme } from '../server/security.js';

/**
 * Credentials in a request: where each security scheme reads its credential, and a request with
 * them put there.
 */

/** A valid credential for a scheme: an API key or token, or a user and password (HTTP Basic). */
export type Credential = string | { username: string; password: string };

/** Gives a valid credential for a security scheme of the contract (by its name), or undefined when there is none to give. */
export type CredentialSource = (scheme: string) => Credential | undefined | Promise<Credential | undefined>;

/** Credentials as they go on the wire. */
export interface Placed {
  headers: Record<string, string>;
  query: [string, string][];
  cookies: string[];
}

/** Puts a credential where its scheme reads it; false when it cannot go there (a client certificate). */
export function place(placed: Placed, scheme: SecurityScheme, credential: Credential): boolean {
  const text = typeof credential === 'string' ? credential : `${credential.username}:${credential.password}`;
  switch (scheme.type) {
    case 'http':
      placed.headers.Authorization =
        scheme.scheme === 'basic'
          ? `Basic ${Buffer.from(text).toString('base64')}`
          : `${scheme.scheme.charAt(0).toUpperCase()}${scheme.scheme.slice(1)} ${text}`;
      return true;
    case 'oauth2':
    case 'openIdConnect':
      placed.headers.Authorization = `Bearer ${text}`;
      return true;
    case 'apiKey':
      // Two schemes may read one place (a contract's ApiKeyQueryAuth and apiKey, both `api_key`): the key goes there once.
      if (scheme.in === 'header') placed.headers[scheme.name] = text;
      else if (scheme.in === 'query') placed.query = [...placed.query.filter(([name]) => name !== scheme.name), [scheme.name, text]];
      else {
        placed.cookies = placed.cookies.filter((pair) => cookieName(pair) !== scheme.name);
        placed.cookies.push(`${scheme.name}=${encodeURIComponent(text)}`);
      }
      return true;
    case 'mutualTLS':
      return false;
  }
}

const cookieName = (pair: string) => pair.split('=')[0]!;

/**
 * `request` with `placed` credentials added, each in place of what the request gave at the same
 * place: a contract may declare the key's query parameter or header as a parameter too (with a
 * `default` such as DEMO_KEY), and a key sent twice is refused.
 */
export function withCredentials<R extends { headers: Record<string, string>; query: [string, string][] }>(request: R, placed: Placed): R {
  const placedHeaders = new Set(Object.keys(placed.headers).map((name) => name.toLowerCase()));
  const headers = {
    ...Object.fromEntries(Object.entries(request.headers).filter(([name]) => !placedHeaders.has(name.toLowerCase()))),
    ...placed.headers,
  };
  if (placed.cookies.length > 0) {
    const placedCookies = new Set(placed.cookies.map(cookieName));
    const kept = (headers.Cookie ?? '').split(/;\s*/).filter((pair) => pair !== '' && !placedCookies.has(cookieName(pair)));
    headers.Cookie = [...kept, ...placed.cookies].join('; ');
  }
  const placedQuery = new Set(placed.query.map(([name]) => name));
  return { ...request, headers, query: [...request.query.filter(([name]) => !placedQuery.has(name)), ...placed.query] };
}
