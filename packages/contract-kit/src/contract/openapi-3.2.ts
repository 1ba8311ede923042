import { escapePointer, isOpenApi32, resolveRef, type OpenApiDocument } from './document.js';

/**
 * What OpenAPI 3.2 adds that the tools the kit builds on do not know (the validator, the type
 * generator and Prism know 3.0 and 3.1): media types by `$ref` (`components.mediaTypes`), which
 * the kit inlines; and what this version of the kit does not serve yet: a parameter `in:
 * querystring`, a stream (`itemSchema`), the `query` method and `additionalOperations`.
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

/**
 * What an operation uses of OpenAPI 3.2 that the kit does not serve yet: a parameter `in:
 * querystring`, a streamed body or answer (a media type with `itemSchema`). Null when none.
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
  if (querystring.length > 0)
    return `its parameter ${querystring[0]} is in: querystring (OpenAPI 3.2), which this version of contract-kit does not serve yet`;
  const streams = (content: unknown, at: string) =>
    Object.entries((content ?? {}) as Record<string, unknown>)
      .map(([type, media]) => [type, resolveRef<Record<string, unknown>>(doc, media, `${at}/${escapePointer(type)}`)] as const)
      .filter(([, media]) => media.itemSchema !== undefined)
      .map(([type]) => type);
  const streamed = [
    ...(body ? streams(body.content, `${where}/requestBody/content`).map((type) => `its request body's ${type}`) : []),
    ...Object.entries(responses).flatMap(([status, response]) =>
      streams(response.content, `${where}/responses/${status}/content`).map((type) => `its ${status} answer's ${type}`),
    ),
  ];
  if (streamed.length > 0)
    return `${streamed[0]} is a stream (itemSchema, OpenAPI 3.2), which this version of contract-kit does not serve yet`;
  return null;
}

/**
 * The operations of methods OpenAPI 3.2 adds (`query`, and `additionalOperations` by any
 * method name), which the kit does not route yet: `QUERY /reports` for each.
 */
export function unroutedOperations(doc: OpenApiDocument, label = 'the contract'): string[] {
  if (!isOpenApi32(doc)) return [];
  return Object.entries(doc.paths ?? {}).flatMap(([path, rawItem]) => {
    const item = resolveRef<Record<string, unknown>>(doc, rawItem, `${label}#/paths/${escapePointer(path)}`);
    const extra = item.additionalOperations && typeof item.additionalOperations === 'object' ? Object.keys(item.additionalOperations) : [];
    return [...(item.query ? ['QUERY'] : []), ...extra].map((method) => `${method} ${path}`);
  });
}
