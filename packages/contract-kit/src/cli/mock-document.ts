import { resolveRef, type OpenApiDocument } from '../contract/document.js';
import { listOperations } from '../contract/operations.js';
import { basePathsOf } from '../contract/servers.js';
import { deprecationHeaders } from '../server/deprecation.js';
import { isJsonMediaType } from '../testing/checker.js';
import { ContractSchemas } from '../testing/schemas.js';

type Node = Record<string, unknown>;

const hasExample = (node: Node) => node.example !== undefined || node.examples !== undefined;

/**
 * The contract as the mock gives it to Prism, so that Prism answers as the server would: its
 * paths under each server's path (Prism serves them at the root of its port); a value for each
 * response header and JSON body that has no example (made from its schema, and valid for it:
 * Prism's own is not always, such as `null` for a boolean header or a string that misses its
 * pattern); and a deprecated operation's Deprecation, Sunset and Link headers, as the server
 * sends them (in place of Prism's `Deprecation: true`).
 */
export function mockDocument(doc: OpenApiDocument, origin: string): OpenApiDocument {
  const copy = structuredClone(doc);
  const schemas = new ContractSchemas(doc);
  const [base = ''] = basePathsOf(doc);
  for (const op of listOperations(doc)) {
    const item = resolveRef<Node>(copy, copy.paths![op.path]);
    const operation = item[op.method] as Node;
    const deprecation = deprecationHeaders(op, base);
    // Prism answers a deprecated operation with `Deprecation: true` of its own, which no date replaces.
    if (deprecation) delete operation.deprecated;
    const responses = (operation.responses ?? {}) as Record<string, unknown>;
    for (const [status, raw] of Object.entries(responses)) {
      // An inline copy: a response shared by several operations gets this one's headers alone.
      const response: Node = { ...resolveRef<Node>(copy, raw) };
      const headers: Record<string, unknown> = {};
      for (const [name, rawHeader] of Object.entries((response.headers ?? {}) as Record<string, unknown>)) {
        const header = resolveRef<Node>(copy, rawHeader);
        const value = hasExample(header) ? undefined : schemas.sample(header.schema);
        headers[name] = value === undefined ? rawHeader : { ...header, example: value };
      }
      for (const [name, value] of Object.entries(deprecation ?? {})) headers[name] = { schema: { type: 'string' }, example: value };
      response.headers = headers;
      const content: Record<string, unknown> = {};
      for (const [type, rawMedia] of Object.entries((response.content ?? {}) as Record<string, Node>)) {
        const value = isJsonMediaType(type) && !hasExample(rawMedia) ? schemas.sample(rawMedia.schema) : undefined;
        content[type] = value === undefined ? rawMedia : { ...rawMedia, example: value };
      }
      if (response.content) response.content = content;
      responses[status] = response;
    }
  }
  const paths = Object.fromEntries(
    basePathsOf(doc).flatMap((prefix) => Object.entries(copy.paths ?? {}).map(([path, item]) => [`${prefix}${path}`, item])),
  );
  return { ...copy, servers: [{ url: origin }], paths };
}
