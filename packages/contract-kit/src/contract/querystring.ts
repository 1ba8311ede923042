import { isOpenApi32, resolveRef, type OpenApiDocument } from './document.js';

/**
 * OpenAPI 3.2's parameter `in: querystring` (the whole query string as one value), as the query
 * parameters it stands for: what the validator and the type generator, which know 3.1, read.
 */

/**
 * What a querystring's schema may say of the object as a whole where its properties are read as
 * query parameters: its type, the properties it requires (each one it names), whether it takes
 * others (true or false), and words.
 */
const OBJECT_KEYWORDS = new Set([
  'type',
  'properties',
  'required',
  'additionalProperties',
  'title',
  'description',
  'example',
  'examples',
  'deprecated',
  '$comment',
]);

/**
 * The query parameters a parameter `in: querystring` (OpenAPI 3.2: the whole query string as one
 * value, of the media type its `content` names) stands for, where its media type is
 * `application/x-www-form-urlencoded` and its schema an object of named properties: one `in:
 * query` parameter a property, required where the object requires it, with the style its
 * `encoding` gives it (form, exploded, by default), as the tools the kit builds on read query
 * parameters. `open` says whether the object takes other keys too (no `additionalProperties:
 * false`). Why it stands for none, for another: a reason.
 */
export function querystringAsQuery(
  doc: OpenApiDocument,
  parameter: Record<string, unknown>,
): { parameters: Record<string, unknown>[]; open: boolean } | { reason: string } {
  const named = `its parameter ${String(parameter.name)} is in: querystring (OpenAPI 3.2)`;
  const content = Object.entries((parameter.content ?? {}) as Record<string, unknown>);
  const [type, rawMedia] = content[0] ?? [];
  if (content.length !== 1 || type === undefined || type.split(';')[0]!.trim().toLowerCase() !== 'application/x-www-form-urlencoded')
    return {
      reason: `${named} of ${type ?? 'no media type'}, which this version of contract-kit does not serve yet: it reads an application/x-www-form-urlencoded one`,
    };
  const media = resolveRef<{ schema?: unknown; encoding?: Record<string, { style?: unknown; explode?: unknown }> }>(doc, rawMedia);
  const schema = resolveRef<Record<string, unknown> | undefined>(doc, media.schema);
  const properties = schema?.properties;
  if (!schema || !properties || typeof properties !== 'object' || (schema.type !== undefined && schema.type !== 'object'))
    return { reason: `${named}, and its schema is not an object of named properties, which this version of contract-kit reads` };
  // A keyword about the object as a whole would go unchecked once its properties are parameters of their own.
  const unread = Object.keys(schema).find(
    (key) =>
      !key.startsWith('x-') &&
      (!OBJECT_KEYWORDS.has(key) ||
        (key === 'additionalProperties' && typeof schema[key] !== 'boolean') ||
        (key === 'required' && !(schema.required as unknown[]).every((name) => typeof name === 'string' && name in properties))),
  );
  if (unread !== undefined)
    return {
      reason: `${named}, and its schema's ${unread} is about the object as a whole, which this version of contract-kit does not check in a querystring yet`,
    };
  const required = Array.isArray(schema.required) ? (schema.required as unknown[]) : [];
  return {
    parameters: Object.entries(properties as Record<string, unknown>).map(([name, property]) => {
      const encoding = media.encoding?.[name] ?? {};
      return {
        name,
        in: 'query',
        required: required.includes(name),
        schema: property,
        style: typeof encoding.style === 'string' ? encoding.style : 'form',
        explode: typeof encoding.explode === 'boolean' ? encoding.explode : encoding.style === undefined || encoding.style === 'form',
      };
    }),
    open: schema.additionalProperties !== false && schema.unevaluatedProperties !== false,
  };
}

/**
 * Parameters as the tools the kit builds on read them: each `in: querystring` (OpenAPI 3.2) one
 * the kit reads replaced by its query parameters (querystringAsQuery), `$ref`s followed; the
 * others as they are. `open` says whether a querystring among them takes keys it does not name.
 */
export function withQuerystringAsQuery(doc: OpenApiDocument, parameters: readonly unknown[]): { parameters: unknown[]; open: boolean } {
  let open = false;
  const expanded = parameters.flatMap((raw) => {
    const parameter = resolveRef<Record<string, unknown>>(doc, raw);
    if (parameter?.in !== 'querystring' || !isOpenApi32(doc)) return [raw];
    const read = querystringAsQuery(doc, parameter);
    if ('reason' in read) return [raw];
    open ||= read.open;
    return read.parameters;
  });
  return { parameters: expanded, open };
}

/**
 * A 3.2 contract (a copy, changed in place) whose parameters `in: querystring` the kit reads are
 * written as the query parameters they stand for (withQuerystringAsQuery): what a tool that knows
 * 3.1 alone types, as `query`.
 */
export function querystringsAsQuery(copy: OpenApiDocument): OpenApiDocument {
  if (!isOpenApi32(copy)) return copy;
  const rewrite = (node: Record<string, unknown> | undefined) => {
    if (node && Array.isArray(node.parameters)) node.parameters = withQuerystringAsQuery(copy, node.parameters).parameters;
  };
  for (const raw of Object.values(copy.paths ?? {})) {
    const item = resolveRef<Record<string, unknown>>(copy, raw);
    rewrite(item);
    const added = (item.additionalOperations ?? {}) as Record<string, unknown>;
    for (const value of [...Object.values(item), ...Object.values(added)])
      if (value && typeof value === 'object' && !Array.isArray(value)) rewrite(value as Record<string, unknown>);
  }
  return copy;
}
