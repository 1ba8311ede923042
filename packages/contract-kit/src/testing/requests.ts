import { XMLBuilder } from 'fast-xml-parser';
import { resolveRef, type OpenApiDocument } from '../contract/document.js';
import type { MediaTypeObject, Operation, Parameter } from '../contract/operations.js';
import { securitySchemesOf, type SecurityScheme } from '../server/security.js';
import { isJsonMediaType } from './checker.js';
import type { ContractSchemas } from './schemas.js';
import { readingsOf } from './values.js';

/** A valid credential for a scheme: an API key or token, or a user and password (HTTP Basic). */
export type Credential = string | { username: string; password: string };

/** Gives a valid credential for a security scheme of the contract (by its name), or undefined when there is none to give. */
export type CredentialSource = (scheme: string) => Credential | undefined | Promise<Credential | undefined>;

/** A request to send, relative to the target's base URL. */
export interface PlannedRequest {
  method: string;
  /** The path with its parameters written in (`/books/978%2F0`). */
  path: string;
  query: [string, string][];
  headers: Record<string, string>;
  body?: string | Blob | FormData | URLSearchParams;
}

/** Credentials as they go on the wire. */
interface Placed {
  headers: Record<string, string>;
  query: [string, string][];
  cookies: string[];
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
    const value = this.schemas.sample(p.schema, p.examples);
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
    const request: PlannedRequest = { method: op.method.toUpperCase(), path: op.path, query: [], headers: {} };
    const cookies: string[] = [];
    for (const p of op.parameters) {
      if (!p.required) continue;
      const text = this.parameterValue(p);
      if (text === undefined) return `no value of ${p.in} parameter ${p.name} was found: give it an example`;
      if (p.in === 'path') request.path = request.path.replace(`{${p.name}}`, encodeURIComponent(text[0]!));
      else if (p.in === 'query') request.query.push(...text.map((t): [string, string] => [p.name, t]));
      else if (p.in === 'header') request.headers[p.name] = text[0]!;
      else cookies.push(`${p.name}=${encodeURIComponent(text[0]!)}`);
    }
    if (cookies.length > 0) request.headers.Cookie = cookies.join('; ');
    if (op.requestBody) {
      const body = this.body(op);
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
    const valid = this.schemas.sample(schema, this.mediaExamples(entry[1]));
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

  /** Whether `op` can be called without credentials (it is public, or one alternative of its security is empty). */
  isOpen(op: Operation): boolean {
    return op.security.length === 0 || op.security.some((alternative) => Object.keys(alternative).length === 0);
  }

  private mediaExamples(media: MediaTypeObject): unknown[] {
    const named = Object.values((media.examples as Record<string, unknown> | undefined) ?? {}).map(
      (e) => resolveRef<{ value?: unknown }>(this.doc, e).value,
    );
    return [media.example, ...named].filter((e) => e !== undefined);
  }

  private body(op: Operation): { contentType: string; body: NonNullable<PlannedRequest['body']> } | string {
    const content = op.requestBody!.content;
    const types = Object.keys(content);
    const order = [
      (t: string) => isJsonMediaType(t) || t === 'application/*' || t === '*/*',
      (t: string) => t === 'application/x-www-form-urlencoded',
      (t: string) => t === 'multipart/form-data',
      (t: string) => t.startsWith('text/') && t !== 'text/xml',
      (t: string) => !/xml/.test(t),
      () => true,
    ];
    for (const fits of order) {
      const type = types.find(fits);
      if (type === undefined) continue;
      const media = content[type]!;
      const value = this.schemas.sample(media.schema, this.mediaExamples(media));
      if (value === undefined && media.schema !== undefined) return `no value of the ${type} body's schema was found: give it an example`;
      if (isJsonMediaType(type) || type === 'application/*' || type === '*/*')
        return { contentType: type.includes('*') ? 'application/json' : type, body: JSON.stringify(value ?? {}) };
      if (type === 'application/x-www-form-urlencoded') return { contentType: type, body: new URLSearchParams(formFields(value)) };
      if (type === 'multipart/form-data') {
        const form = new FormData();
        const properties = resolveRef<{ properties?: Record<string, unknown> } | undefined>(this.doc, media.schema)?.properties ?? {};
        for (const [name, text] of formFields(value)) {
          if (isFile(this.doc, properties[name])) form.append(name, new Blob([text]), name);
          else form.append(name, text);
        }
        return { contentType: type, body: form };
      }
      if (/xml/.test(type)) return { contentType: type, body: String(new XMLBuilder().build({ [xmlRoot(media.schema)]: value })) };
      return { contentType: type, body: typeof value === 'string' ? value : new Blob(['bytes']) };
    }
    return 'the request body declares no media type';
  }
}

/** The fields of a form body: each scalar property, each item of an array property. */
function formFields(value: unknown): [string, string][] {
  if (!value || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([name, v]): [string, string][] =>
    // An empty list would send nothing, as if the field were left out: one item stands for it.
    Array.isArray(v)
      ? (v.length === 0 ? [''] : (v as unknown[])).map((item): [string, string] => [name, String(item)])
      : [[name, typeof v === 'object' ? JSON.stringify(v) : String(v)]],
  );
}

/** Whether a multipart part's schema is a file (`format: binary`, a `contentMediaType` or a `contentEncoding`), or files, or one of its alternatives is. */
function isFile(doc: OpenApiDocument, schema: unknown): boolean {
  const s = resolveRef<Record<string, unknown> | undefined>(doc, schema) ?? {};
  if (s.format === 'binary' || s.format === 'base64' || s.contentMediaType !== undefined || s.contentEncoding !== undefined) return true;
  const alternatives = [...((s.oneOf as unknown[] | undefined) ?? []), ...((s.anyOf as unknown[] | undefined) ?? [])];
  return (s.items !== undefined && isFile(doc, s.items)) || alternatives.some((alternative) => isFile(doc, alternative));
}

/** The root element of an XML body: its schema's `xml.name`, else the last part of its `$ref`. */
function xmlRoot(schema: unknown): string {
  const named = (schema as { xml?: { name?: unknown } } | undefined)?.xml?.name;
  if (typeof named === 'string') return named;
  const ref = (schema as { $ref?: unknown } | undefined)?.$ref;
  return typeof ref === 'string' ? ref.split('/').at(-1)! : 'body';
}

/** Puts a credential where its scheme reads it; false when it cannot go there (a client certificate). */
function place(placed: Placed, scheme: SecurityScheme, credential: Credential): boolean {
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
      if (scheme.in === 'header') placed.headers[scheme.name] = text;
      else if (scheme.in === 'query') placed.query.push([scheme.name, text]);
      else placed.cookies.push(`${scheme.name}=${encodeURIComponent(text)}`);
      return true;
    case 'mutualTLS':
      return false;
  }
}

/** `request` with `placed` credentials added. */
export function withCredentials(request: PlannedRequest, placed: Placed): PlannedRequest {
  const headers = { ...request.headers, ...placed.headers };
  if (placed.cookies.length > 0) headers.Cookie = [headers.Cookie, ...placed.cookies].filter(Boolean).join('; ');
  return { ...request, headers, query: [...request.query, ...placed.query] };
}
