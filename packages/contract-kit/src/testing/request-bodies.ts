import { XMLBuilder } from 'fast-xml-parser';
import { resolveRef, type OpenApiDocument } from '../contract/document.js';
import type { MediaTypeObject, Operation } from '../contract/operations.js';
import { streamedRequests } from '../server/stream-media.js';
import { isJsonMediaType } from './checker.js';
import { withoutReadOnly } from './read-only.js';
import type { ContractSchemas } from './schemas.js';

/** A request's body, in each form fetch sends. */
export type RequestBody = string | Blob | FormData | URLSearchParams;

/** The examples a media type of a body gives, as values. */
export function mediaExamples(doc: OpenApiDocument, media: MediaTypeObject): unknown[] {
  const named = Object.values((media.examples as Record<string, unknown> | undefined) ?? {}).map(
    (e) => resolveRef<{ value?: unknown }>(doc, e).value,
  );
  return [media.example, ...named].filter((e) => e !== undefined);
}

/**
 * A valid body of `op` in the first media type it can make (JSON, a form, multipart, text, bytes,
 * XML; a stream of items), with that media type; a string says why none can be made.
 */
export function requestBody(
  doc: OpenApiDocument,
  schemas: ContractSchemas,
  op: Operation,
): { contentType: string; body: RequestBody } | string {
  const content = op.requestBody!.content;
  const types = Object.keys(content);
  const streamed = streamedRequests(doc, op);
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
    const stream = streamed.get(type);
    if (stream) {
      // Two items of a streamed body (OpenAPI 3.2 itemSchema), framed as its media type says.
      const item = withoutReadOnly(doc, stream.itemSchema, schemas.sample(stream.itemSchema, mediaExamples(doc, media)));
      if (item === undefined) return `no value of the ${type} body's itemSchema was found: give it an example`;
      const text = JSON.stringify(item);
      return { contentType: type, body: stream.framing === 'seq' ? `\x1e${text}\n\x1e${text}\n` : `${text}\n${text}\n` };
    }
    const value = withoutReadOnly(doc, media.schema, schemas.sample(media.schema, mediaExamples(doc, media)));
    if (value === undefined && media.schema !== undefined) return `no value of the ${type} body's schema was found: give it an example`;
    if (isJsonMediaType(type) || type === 'application/*' || type === '*/*')
      return { contentType: type.includes('*') ? 'application/json' : type, body: JSON.stringify(value ?? {}) };
    const form = resolveRef<{ properties?: Record<string, unknown>; required?: unknown } | undefined>(doc, media.schema);
    const required = Array.isArray(form?.required) ? (form.required as string[]) : [];
    if (type === 'application/x-www-form-urlencoded') return { contentType: type, body: new URLSearchParams(formFields(value, required)) };
    if (type === 'multipart/form-data') {
      const parts = new FormData();
      const properties = form?.properties ?? {};
      for (const [name, text] of formFields(value, required)) {
        if (isFile(doc, properties[name])) parts.append(name, new Blob([text]), name);
        else parts.append(name, text);
      }
      return { contentType: type, body: parts };
    }
    if (/xml/.test(type)) return { contentType: type, body: String(new XMLBuilder().build({ [xmlRoot(media.schema)]: value })) };
    return { contentType: type, body: typeof value === 'string' ? value : new Blob(['bytes']) };
  }
  return 'the request body declares no media type';
}

/**
 * The fields of a form body: each scalar property, each item of an array property. An empty list
 * is sent as nothing, as a form does; where the schema requires it, one empty item stands for it.
 */
export function formFields(value: unknown, required: readonly string[]): [string, string][] {
  if (!value || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([name, v]): [string, string][] =>
    Array.isArray(v)
      ? (v.length === 0 && required.includes(name) ? [''] : (v as unknown[])).map((item): [string, string] => [name, String(item)])
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
