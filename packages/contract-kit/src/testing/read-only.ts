import { resolveRef, type OpenApiDocument } from '../contract/document.js';

type Node = Record<string, unknown>;

/** A schema and the schemas it is made of (`allOf`, `anyOf`, `oneOf`, at any depth), each `$ref` followed. */
function partsOf(doc: OpenApiDocument, schema: unknown, depth = 0): Node[] {
  const node = resolveRef<Node | undefined>(doc, schema) ?? {};
  if (depth > 8) return [node];
  const nested = (['allOf', 'anyOf', 'oneOf'] as const).flatMap((k) => (node[k] as unknown[] | undefined) ?? []);
  return [node, ...nested.flatMap((part) => partsOf(doc, part, depth + 1))];
}

/** Whether a property's schema marks it `readOnly`: itself (beside a `$ref` too), what it refers to, or a part of it. */
const isReadOnly = (doc: OpenApiDocument, property: unknown) =>
  (property as { readOnly?: unknown } | undefined)?.readOnly === true || partsOf(doc, property).some((part) => part.readOnly === true);

/**
 * `value` without the properties its schema marks `readOnly` (an example of a resource as the
 * server returns it, with its id): a request does not send them, and a server refuses them.
 */
export function withoutReadOnly(doc: OpenApiDocument, schema: unknown, value: unknown, depth = 0): unknown {
  if (depth > 16 || typeof value !== 'object' || value === null) return value;
  const parts = partsOf(doc, schema);
  if (Array.isArray(value)) {
    const items = parts.find((part) => part.items !== undefined)?.items;
    return value.map((item) => withoutReadOnly(doc, items, item, depth + 1));
  }
  const properties = Object.assign({}, ...parts.map((part) => (part.properties ?? {}) as Node)) as Node;
  const kept: Node = {};
  for (const [name, item] of Object.entries(value)) {
    if (isReadOnly(doc, properties[name])) continue;
    kept[name] = withoutReadOnly(doc, properties[name], item, depth + 1);
  }
  return kept;
}
