import fc from 'fast-check';
import { readAnswerBody } from 'contract-kit/testing';
import type { ObservedResponse } from '../contract/conformance.js';
import type { AuthKind, GeneratedRequest } from './arbitraries-from-spec.js';

/** The keys a run needs, one per way of authenticating: a valid one and the invalid ones that exist in the store. */
export interface RunKeys {
  valid: string;
  /** Issued, then revoked. */
  revoked: string;
  /** Issued for the other environment. */
  otherEnvironment: string;
  /** Well-formed, right checksum, never issued. */
  unknown: string;
}

/** A request as it goes on the wire. */
export interface WireRequest {
  method: string;
  url: string;
  headers: [string, string][];
  body: string | null;
}

/** Where the key goes for each way of (not) authenticating. */
function authorization(auth: AuthKind, keys: RunKeys): { headers: [string, string][]; query: [string, string][] } {
  const bearer = (key: string): [string, string][] => [['Authorization', `Bearer ${key}`]];
  const last = keys.valid.at(-1) === 'A' ? 'B' : 'A';
  switch (auth) {
    case 'valid':
      return { headers: bearer(keys.valid), query: [] };
    case 'missing':
      return { headers: [], query: [] };
    case 'not-bearer':
      return { headers: [['Authorization', `Token ${keys.valid}`]], query: [] };
    case 'malformed':
      return { headers: bearer(keys.valid.slice(0, -1)), query: [] };
    case 'bad-checksum':
      return { headers: bearer(keys.valid.slice(0, -1) + last), query: [] };
    case 'other-environment':
      return { headers: bearer(keys.otherEnvironment), query: [] };
    case 'unknown':
      return { headers: bearer(keys.unknown), query: [] };
    case 'revoked':
      return { headers: bearer(keys.revoked), query: [] };
    case 'in-query':
      return { headers: [], query: [['api_key', keys.valid]] };
    case 'twice':
      return { headers: [...bearer(keys.valid), ...bearer(keys.valid)], query: [] };
  }
}

/** The generated request as it is sent: URL, headers (Authorization included) and body. */
export function toWire(request: GeneratedRequest, baseUrl: string, keys: RunKeys): WireRequest {
  const auth = authorization(request.auth, keys);
  const path = request.path.replace(/\{([^}]+)\}/g, (_m, name: string) => encodeURIComponent(request.pathParams[name] ?? ''));
  const query = new URLSearchParams([...request.query, ...auth.query]).toString();
  const headers: [string, string][] = [...auth.headers, ...Object.entries(request.headers)];
  if (request.body) headers.push(['Content-Type', request.body.contentType]);
  return { method: request.method, url: `${baseUrl}${path}${query ? `?${query}` : ''}`, headers, body: request.body?.text ?? null };
}

/** A `curl` command that sends the same request again. */
export function toCurl(wire: WireRequest): string {
  const quote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;
  const parts = ['curl -i', '-X', wire.method, quote(wire.url)];
  for (const [name, value] of wire.headers) parts.push('-H', quote(`${name}: ${value}`));
  if (wire.body !== null) parts.push('--data-binary', quote(wire.body));
  return parts.join(' ');
}

/** Sends a wire request with fetch (keep-alive), and reads the whole response. */
export async function sendRaw(wire: WireRequest): Promise<ObservedResponse> {
  const headers = new Headers();
  for (const [name, value] of wire.headers) headers.append(name, value);
  const response = await fetch(wire.url, { method: wire.method, headers, body: wire.body });
  return { status: response.status, headers: response.headers, ...(await readAnswerBody(response)) };
}

/** A loosely typed view of the typed client, for requests built from the contract at run time. */
type AnyClient = {
  request: (method: string, path: string, init: Record<string, unknown>) => Promise<{ response: Response }>;
  use: (middleware: { onResponse: (options: { response: Response }) => void }) => void;
};

/**
 * Sends a valid request through a new typed client (openapi-fetch serialises the path, query,
 * headers and body itself) and returns the response with its body as received.
 */
export async function sendTyped(client: object, request: GeneratedRequest, keys: RunKeys): Promise<ObservedResponse> {
  if (!request.typed) throw new Error('only valid requests have typed values');
  const typed = client as AnyClient;
  let answer: Response | undefined;
  // openapi-fetch parses error bodies; the checks want the text as it came (a stream's, as far as it is read).
  typed.use({ onResponse: ({ response }) => void (answer = response.clone()) });
  const headers: Record<string, string> = { Authorization: `Bearer ${keys.valid}`, ...request.typed.header };
  if (request.body) headers['Content-Type'] = request.body.contentType;
  const { response } = await typed.request(request.method.toLowerCase(), request.path, {
    params: { path: request.typed.path, query: request.typed.query },
    headers,
    ...(request.body ? { body: request.typed.body } : {}),
    // A success's body is left to be read from the clone: a stream (GET /pets/feed) never ends by itself.
    parseAs: 'stream',
  });
  if (response.ok) void response.body?.cancel().catch(() => undefined);
  return { status: response.status, headers: response.headers, ...(await readAnswerBody(answer!)) };
}

/**
 * Makes fast-check print a generated request as the `curl` that replays it, plus its JSON form,
 * in a counterexample.
 */
export function printable(request: GeneratedRequest, baseUrl: string, keys: RunKeys): GeneratedRequest {
  return Object.defineProperty({ ...request }, fc.toStringMethod, {
    value: () => `\n  ${toCurl(toWire(request, baseUrl, keys))}\n  ${JSON.stringify({ ...request, typed: undefined })}\n`,
    enumerable: false,
  });
}
