import { resolveRef, type OpenApiDocument } from '../contract/document.js';
import type { Operation, Parameter } from '../contract/operations.js';
import { securitySchemesOf, type SecurityScheme } from '../server/security.js';
import { isJsonMediaType } from './checker.js';
import { mediaExamples, requestBody, type RequestBody } from './request-bodies.js';
import { place, type CredentialSource, type Placed } from './credentials.js';
import type { ContractSchemas } from './schemas.js';
import { readingsOf } from './values.js';

/**
 * Whether a header parameter is one the HTTP client writes from the request itself (its framing,
 * its connection): a contract may declare it, but a request cannot carry another value of it.
 */
export const setByClient = (p: Parameter) =>
  p.in === 'header' &&
  ['content-length', 'transfer-encoding', 'host', 'connection', 'keep-alive', 'upgrade', 'te', 'trailer', 'expect'].includes(
    p.name.toLowerCase(),
  );

/**
 * Whether a header parameter is one fetch (undici) sends a value of its own of when a request
 * gives none (`Accept-Encoding: gzip, deflate`, `User-Agent: node`): a request that leaves it out
 * still carries it, and the server checks that value against the parameter's schema. A request
 * gives it always, from its schema. `Accept` is not among them: OpenAPI ignores a parameter of
 * that name.
 */
export const sentByFetch = (p: Parameter) =>
  p.in === 'header' && ['accept-encoding', 'accept-language', 'sec-fetch-mode', 'user-agent'].includes(p.name.toLowerCase());

/** A request to send, relative to the target's base URL. */
export interface PlannedRequest {
  method: string;
  /** The path with its parameters written in (`/books/978%2F0`). */
  path: string;
  query: [string, string][];
  headers: Record<string, string>;
  body?: RequestBody;
}

/** A parameter value as it is written in a URL or header; undefined for an object, which is not generated. */
function wireText(value: unknown, p: Parameter): string[] | undefined {
  if (value === null || value === undefined) return undefined;
  if (Array.isArray(value)) {
    if (value.some((item) => item !== null && typeof item === 'object')) return undefined;
    const items = (value as (string | number | boolean | null)[]).map(String);
    return p.in === 'query' && p.explode ? items : [items.join(',')];
  }
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? [String(value)] : undefined;
}

/** Texts that break a parameter's schema, most telling first, for the broken-parameter case. */
function brokenTexts(schema: Record<string, unknown>): string[] {
  const texts = ['not-a-valid-value', '', 'x'];
  // One past maxLength, where a URL or header can carry it (past some 8 KB a server answers 431 instead).
  if (typeof schema.maxLength === 'number' && schema.maxLength < 1000) texts.unshift('x'.repeat(schema.maxLength + 1));
  for (const bound of ['maximum', 'exclusiveMaximum'] as const) {
    const limit = schema[bound];
    if (typeof limit === 'number') texts.unshift(String(limit + 1));
  }
  for (const bound of ['minimum', 'exclusiveMinimum'] as const) {
    const limit = schema[bound];
    if (typeof limit === 'number') texts.unshift(String(limit - 1));
  }
  if (schema.type === 'integer') texts.push('1.5');
  return [...texts, '-1', '0', '99999999999999999999', 'maybe', '%', ' '];
}

/** Builds the requests of the conformance cases from a contract: valid ones, and ones with one input broken. */
export class RequestPlanner {
  private readonly schemes: Map<string, SecurityScheme>;

  constructor(
    private readonly doc: OpenApiDocument,
    private readonly schemas: ContractSchemas,
  ) {
    this.schemes = securitySchemesOf(doc);
  }

  /** A valid value of a parameter as written on the wire, or undefined when none is found. */
  parameterValue(p: Parameter): string[] | undefined {
    let value = this.schemas.sample(p.schema, p.examples);
    // An empty array is no value at all in a query, a header or a cookie: a required one gets an item.
    if (p.required && Array.isArray(value) && value.length === 0) value = this.schemas.sample({ allOf: [p.schema], minItems: 1 }) ?? value;
    const text = wireText(value, p);
    if (p.in === 'path' && text && ['', '.', '..'].includes(text[0]!)) return undefined;
    return text;
  }

  /** A text of a parameter that its schema refuses however it is read (as text, as a number, as a boolean). */
  brokenParameter(p: Parameter): string | undefined {
    if (p.type === 'array' || p.type === 'object' || p.schema === undefined) return undefined;
    const schema = resolveRef<Record<string, unknown>>(this.doc, p.schema);
    return brokenTexts(schema).find(
      (text) =>
        !(p.in === 'path' && ['', '.', '..'].includes(text)) &&
        (readingsOf(text)?.every((r) => !this.schemas.accepts(p.schema, r)) ?? false),
    );
  }

  /**
   * A valid request of `op`: its path parameters and its required query, header and cookie
   * parameters from their examples or schemas, and a body of the first media type it can make
   * (JSON, a form, multipart, text, bytes, XML) when the operation takes one. A string says why
   * none can be made.
   */
  valid(op: Operation): PlannedRequest | string {
    const request: PlannedRequest = { method: op.method.toUpperCase(), path: op.urlPath, query: [], headers: {} };
    const cookies: string[] = [];
    for (const p of op.parameters) {
      if ((!p.required && !sentByFetch(p)) || setByClient(p)) continue;
      const text = this.parameterValue(p);
      // An optional header fetch fills in goes with fetch's value when its schema gives none.
      if (text === undefined && !p.required) continue;
      if (text === undefined) return `no value of ${p.in} parameter ${p.name} was found: give it an example`;
      if (p.in === 'path') request.path = request.path.replace(`{${p.name}}`, encodeURIComponent(text[0]!));
      else if (p.in === 'query') request.query.push(...text.map((t): [string, string] => [p.name, t]));
      else if (p.in === 'header') request.headers[p.name] = text[0]!;
      else cookies.push(`${p.name}=${encodeURIComponent(text[0]!)}`);
    }
    if (cookies.length > 0) request.headers.Cookie = cookies.join('; ');
    // fetch sends no body with GET or HEAD: a body such an operation takes is left out.
    if (op.requestBody && op.method !== 'get' && op.method !== 'head') {
      const body = requestBody(this.doc, this.schemas, op);
      if (typeof body === 'string') {
        if (op.requestBody.required) return body;
      } else {
        request.headers['Content-Type'] = body.contentType;
        request.body = body.body;
        if (body.body instanceof FormData) delete request.headers['Content-Type'];
      }
    }
    return request;
  }

  /** A JSON body the operation's schema refuses, or undefined when it takes no JSON body or none is found. */
  brokenJsonBody(op: Operation): { contentType: string; text: string } | undefined {
    const entry = Object.entries(op.requestBody?.content ?? {}).find(([type]) => isJsonMediaType(type));
    if (!entry) return undefined;
    const schema = entry[1].schema;
    // Bytes under a JSON media type (a contract's slip, which the server reads as bytes): nothing to refuse.
    if (resolveRef<{ format?: unknown } | undefined>(this.doc, schema)?.format === 'binary') return undefined;
    const valid = this.schemas.sample(schema, mediaExamples(this.doc, entry[1]));
    const candidates: unknown[] = [[], 'not an object', 42, null, {}];
    if (valid && typeof valid === 'object' && !Array.isArray(valid)) {
      for (const key of Object.keys(valid)) {
        const { [key]: _dropped, ...rest } = valid as Record<string, unknown>;
        candidates.push(rest, { ...valid, [key]: [] }, { ...valid, [key]: { nested: true } });
      }
    }
    const broken = candidates.find((value) => !this.schemas.accepts(schema, value));
    return broken === undefined ? undefined : { contentType: entry[0], text: JSON.stringify(broken) };
  }

  /**
   * Credentials for `op` as they go on the wire: for the first alternative of its security whose
   * every scheme `source` has a credential for; none for a public operation (or one with an empty
   * alternative, when no other can be met). A string says which schemes lack one.
   */
  async credentials(op: Operation, source: CredentialSource): Promise<Placed | string> {
    const none: Placed = { headers: {}, query: [], cookies: [] };
    if (op.security.length === 0) return none;
    const lacking: string[] = [];
    for (const alternative of op.security) {
      const placed: Placed = { headers: {}, query: [], cookies: [] };
      let complete = true;
      for (const name of Object.keys(alternative)) {
        const credential = await source(name);
        const scheme = this.schemes.get(name);
        if (credential === undefined || !scheme || !place(placed, scheme, credential)) {
          lacking.push(name);
          complete = false;
        }
      }
      if (complete) return placed;
    }
    if (op.security.some((alternative) => Object.keys(alternative).length === 0)) return none;
    return `no credential was given for ${[...new Set(lacking)].join(', ')}`;
  }

  /** Whether `p` is where one of `op`'s API-key schemes reads its key: the credential is its value. */
  holdsKey(op: Operation, p: Parameter): boolean {
    const same = (name: string) => (p.in === 'header' ? name.toLowerCase() === p.name.toLowerCase() : name === p.name);
    return op.security
      .flatMap((alternative) => Object.keys(alternative))
      .some((name) => {
        const scheme = this.schemes.get(name);
        return scheme?.type === 'apiKey' && scheme.in === p.in && same(scheme.name);
      });
  }

  /** `request` without what any of `op`'s security schemes reads: its Authorization header, and the headers, query parameters and cookies of its API keys. */
  withoutCredentials(op: Operation, request: PlannedRequest): PlannedRequest {
    const schemes = op.security.flatMap((alternative) => Object.keys(alternative)).flatMap((name) => this.schemes.get(name) ?? []);
    const keys = (where: string) => schemes.flatMap((s) => (s.type === 'apiKey' && s.in === where ? [s.name.toLowerCase()] : []));
    const headers = new Set(['authorization', ...keys('header')]);
    const query = new Set(keys('query'));
    const cookies = new Set(keys('cookie'));
    const cookie = Object.entries(request.headers).find(([name]) => name.toLowerCase() === 'cookie')?.[1];
    const kept = cookie
      ?.split(/;\s*/)
      .filter((pair) => !cookies.has(pair.split('=')[0]!.toLowerCase()))
      .join('; ');
    return {
      ...request,
      headers: {
        ...Object.fromEntries(
          Object.entries(request.headers).filter(([name]) => !headers.has(name.toLowerCase()) && name.toLowerCase() !== 'cookie'),
        ),
        ...(kept ? { Cookie: kept } : {}),
      },
      query: request.query.filter(([name]) => !query.has(name.toLowerCase())),
    };
  }

  /** Whether `op` can be called without credentials (it is public, or one alternative of its security is empty). */
  isOpen(op: Operation): boolean {
    return op.security.length === 0 || op.security.some((alternative) => Object.keys(alternative).length === 0);
  }
}
