import { escapePointer, isOpenApi32, resolveRef, type OpenApiDocument } from './document.js';

/**
 * What OpenAPI 3.2 adds that the tools the kit builds on do not know (the validator, the type
 * generator and Prism know 3.0 and 3.1): media types by `$ref` (`components.mediaTypes`), which
 * the kit inlines; streams (`itemSchema`), which it frames and checks item by item; and what
 * this version of the kit does not serve yet: a parameter `in: querystring`, `multipart/mixed`.
 */

const MEDIA_TYPE_REF = '#/components/mediaTypes/';

/**
 * A 3.2 contract with each media type given by `$ref` to `components.mediaTypes` (under a
 * `content`) replaced by what it refers to, in place: the same contract, written as 3.1 can.
 */
export function inlineMediaTypes(doc: OpenApiDocument): OpenApiDocument {
  if (!isOpenApi32(doc) || !doc.components?.mediaTypes) return doc;
  const walk = (node: unknown, seen: Set<string>): void => {
    if (Array.isArray(node)) for (const item of node) walk(item, seen);
    else if (node && typeof node === 'object') {
      const object = node as Record<string, unknown>;
      const content = object.content;
      if (content && typeof content === 'object' && !Array.isArray(content))
        for (const [type, media] of Object.entries(content as Record<string, unknown>)) {
          const ref = (media as { $ref?: unknown } | null)?.$ref;
          if (typeof ref !== 'string' || !ref.startsWith(MEDIA_TYPE_REF) || seen.has(ref)) continue;
          const target = resolveRef<unknown>(doc, media, ref);
          (content as Record<string, unknown>)[type] = structuredClone(target);
          walk((content as Record<string, unknown>)[type], new Set([...seen, ref]));
        }
      for (const value of Object.values(object)) walk(value, seen);
    }
  };
  walk(doc.paths, new Set());
  walk(doc.webhooks, new Set());
  for (const [kind, named] of Object.entries(doc.components)) if (kind !== 'mediaTypes') walk(named, new Set());
  return doc;
}

/** The sequential media types whose streamed answers the kit frames (server/streams.ts), by how it frames an item. */
const FRAMINGS = {
  'text/event-stream': 'sse',
  'application/jsonl': 'lines',
  'application/x-ndjson': 'lines',
  'application/json-seq': 'seq',
} as const;

export type Framing = (typeof FRAMINGS)[keyof typeof FRAMINGS];

/** How the kit frames a streamed answer of the media type `type` (`text/event-stream; charset=utf-8`); undefined for one it does not (`multipart/mixed`). */
export const framingOf = (type: string): Framing | undefined => FRAMINGS[type.split(';')[0]!.trim().toLowerCase() as keyof typeof FRAMINGS];

/**
 * Whether the events of a `text/event-stream` whose items `itemSchema` describes carry JSON in
 * `data` that clients are to parse: its schema types it as no string (an object, an array, a
 * number), as some contracts write it. The server sends such a value as JSON; a string `data`,
 * even with `contentMediaType: application/json`, is the string.
 */
export function sseDataIsJson(doc: OpenApiDocument, itemSchema: unknown): boolean {
  const schema = sseDataSchema(doc, itemSchema);
  if (!schema) return false;
  const { type } = schema;
  if (typeof type === 'string') return type !== 'string';
  if (Array.isArray(type)) return !type.includes('string');
  return schema.properties !== undefined || schema.items !== undefined;
}

/** The schema of the `data` of the events whose items `itemSchema` describes, resolved; undefined without one. */
function sseDataSchema(doc: OpenApiDocument, itemSchema: unknown): Record<string, unknown> | undefined {
  const data = resolveRef<{ properties?: { data?: unknown } } | undefined>(doc, itemSchema)?.properties?.data;
  return resolveRef<Record<string, unknown> | undefined>(doc, data);
}

/**
 * The schema of the JSON an event's string `data` holds, where its schema says so
 * (`contentMediaType: application/json`, or any `+json`, with a `contentSchema`), which JSON
 * Schema leaves to the application to check; undefined otherwise.
 */
export function sseJsonContentSchema(doc: OpenApiDocument, itemSchema: unknown): unknown {
  const schema = sseDataSchema(doc, itemSchema);
  const type = schema?.contentMediaType;
  if (typeof type !== 'string') return undefined;
  const subtype = type.split(';')[0]!.trim().toLowerCase().split('/')[1] ?? '';
  return subtype === 'json' || subtype.endsWith('+json') ? schema?.contentSchema : undefined;
}

/**
 * A copy of a 3.2 contract whose every streamed media type (one with `itemSchema` and no
 * `schema`) has its item's schema as its `schema`: what a tool that knows 3.1 alone types, as
 * the type of one item (the type generator writes `unknown` for a stream).
 */
export function streamsAsItems(doc: OpenApiDocument): OpenApiDocument {
  if (!isOpenApi32(doc)) return doc;
  const copy = structuredClone(doc);
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) for (const item of node) walk(item);
    else if (node && typeof node === 'object') {
      const content = (node as { content?: unknown }).content;
      if (content && typeof content === 'object' && !Array.isArray(content))
        for (const media of Object.values(content as Record<string, Record<string, unknown> | null>))
          if (media && typeof media === 'object' && media.itemSchema !== undefined && media.schema === undefined)
            media.schema = media.itemSchema;
      for (const value of Object.values(node)) walk(value);
    }
  };
  walk(copy.paths);
  walk(copy.webhooks);
  walk(copy.components);
  return copy;
}

/**
 * What an operation uses of OpenAPI 3.2 that the kit does not serve yet: a parameter `in:
 * querystring` it does not read (see querystringAsQuery; `querystring` holds why), a streamed
 * request body or answer of a media type it does not frame (`multipart/mixed`; server-sent events
 * in a request). Null when none.
 */
export function notServedYet(
  doc: OpenApiDocument,
  querystring: string[],
  body: Record<string, unknown> | null,
  responses: Record<string, Record<string, unknown>>,
  where: string,
): string | null {
  // Before 3.2, `itemSchema` is no field of a media type, and means nothing.
  if (!isOpenApi32(doc)) return null;
  if (querystring.length > 0) return querystring[0]!;
  const streams = (content: unknown, at: string) =>
    Object.entries((content ?? {}) as Record<string, unknown>)
      .map(([type, media]) => [type, resolveRef<Record<string, unknown>>(doc, media, `${at}/${escapePointer(type)}`)] as const)
      .filter(([, media]) => media.itemSchema !== undefined)
      .map(([type]) => type);
  const streamed = [
    ...(body
      ? streams(body.content, `${where}/requestBody/content`)
          .filter((type) => framingOf(type) === undefined || framingOf(type) === 'sse')
          .map((type) => `its request body's ${type} is a stream (itemSchema) of a media type it does not read`)
      : []),
    ...Object.entries(responses).flatMap(([status, response]) =>
      streams(response.content, `${where}/responses/${status}/content`)
        .filter((type) => framingOf(type) === undefined)
        .map((type) => `its ${status} answer's ${type} is a stream (itemSchema) of a media type it does not frame`),
    ),
  ];
  if (streamed.length > 0) return `${streamed[0]}, which this version of contract-kit does not serve yet`;
  return null;
}
