import { createRequire } from 'node:module';
import { escapePointer, isOpenApi32, type OpenApiDocument } from './document.js';

/**
 * The methods an HTTP server of Node.js takes (its parser knows them, upper case). Required, not
 * imported: an ES import of node:http loads undici (nodejs/node#59686).
 */
export const NODE_METHODS: readonly string[] = (createRequire(import.meta.url)('node:http') as { METHODS: string[] }).METHODS;

/** HTTP methods an OpenAPI 3.0 and 3.1 path item may hold, in the order OpenAPI lists them. */
export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

/**
 * Whether an operation's method is one OpenAPI 3.2 adds to the eight of 3.0 and 3.1: `query`,
 * or one of a path item's `additionalOperations`. The tools the kit builds on (the validator,
 * the type generator, Prism, openapi-fetch) know the eight alone.
 */
export const isAddedMethod = (method: string) => !(HTTP_METHODS as readonly string[]).includes(method);

/** The operation object of `method` (lower case) in a path item: a fixed field's, or an `additionalOperations` one's. */
export function operationObject(item: Record<string, unknown>, method: string): Record<string, unknown> | undefined {
  if (!isAddedMethod(method) || method === 'query') return item[method] as Record<string, unknown> | undefined;
  const added = (item.additionalOperations ?? {}) as Record<string, Record<string, unknown>>;
  return Object.entries(added).find(([name]) => name.toLowerCase() === method)?.[1];
}

/** Why an `additionalOperations` method cannot be served, or null: Node never routes it, or a fixed field is for it. */
function addedMethodDefect(name: string, fixed: readonly string[]): string | null {
  if (fixed.includes(name.toLowerCase()))
    return `its method ${name} is in additionalOperations, which may not hold one of the path item's own fields (${name.toLowerCase()})`;
  if (name === 'CONNECT')
    return 'its method CONNECT is one an HTTP server of Node.js takes apart from requests (a tunnel), never to a route';
  if (!NODE_METHODS.includes(name))
    return `its method ${name} is not one an HTTP server of Node.js takes${NODE_METHODS.includes(name.toUpperCase()) ? ` (methods are case-sensitive: ${name.toUpperCase()})` : ''}`;
  return null;
}

/**
 * The operations of a path item, by the method each is requested with in lower case, and where
 * each sits under the item: its fixed fields (and, in 3.2, `query` and `additionalOperations`,
 * whose keys are methods as they are sent: `LINK`). Why one of them cannot be served, where it
 * cannot: an added method that Node's HTTP parser does not take (it takes them in upper case,
 * and only those it knows), or one a fixed field is for.
 */
export function pathItemOperations(
  doc: OpenApiDocument,
  item: Record<string, unknown>,
): { method: string; key: string; op: unknown; defect: string | null }[] {
  const fixed = [...HTTP_METHODS, ...(isOpenApi32(doc) ? (['query'] as const) : [])];
  const found = fixed.map((method): { method: string; key: string; op: unknown; defect: string | null } => ({
    method,
    key: method,
    op: item[method],
    defect: null,
  }));
  const added = isOpenApi32(doc) ? item.additionalOperations : undefined;
  if (added && typeof added === 'object' && !Array.isArray(added))
    for (const [name, op] of Object.entries(added)) {
      const defect = addedMethodDefect(name, fixed);
      found.push({ method: name.toLowerCase(), key: `additionalOperations/${escapePointer(name)}`, op, defect });
    }
  return found.filter(({ op }) => op && typeof op === 'object');
}
