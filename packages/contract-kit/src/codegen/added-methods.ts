import { isOpenApi32, resolveRef, type OpenApiDocument } from '../contract/document.js';
import { isAddedMethod, operationObject } from '../contract/methods.js';
import type { Operation } from '../contract/operations.js';

/**
 * The key under `components.pathItems` of the copy addedMethodsAsPathItems makes, where an
 * operation of a method OpenAPI 3.2 adds is (`QUERY /notes`), as the method the type generator
 * types it with (`post`, whatever the method: it types no method's operation otherwise).
 */
export const addedMethodPlace = (op: Pick<Operation, 'method' | 'path'>) => ({
  item: `${op.method.toUpperCase()} ${op.path}`,
  method: 'post',
});

/**
 * A 3.2 contract (a copy, changed in place) with each operation of a method the type generator
 * does not know (`query`, an `additionalOperations` one) moved to `components.pathItems`, with its
 * path's parameters, at addedMethodPlace: there it types it, with an operationId in `operations`.
 */
export function addedMethodsAsPathItems(copy: OpenApiDocument): OpenApiDocument {
  if (!isOpenApi32(copy)) return copy;
  const moved: Record<string, unknown> = {};
  for (const [path, raw] of Object.entries(copy.paths ?? {})) {
    const item = resolveRef<Record<string, unknown>>(copy, raw);
    const methods = [
      ...(item.query ? ['query'] : []),
      ...Object.keys(item.additionalOperations ?? {}).map((name) => name.toLowerCase()),
    ].filter(isAddedMethod);
    for (const method of methods) {
      const place = addedMethodPlace({ method, path });
      moved[place.item] = { ...(item.parameters ? { parameters: item.parameters } : {}), [place.method]: operationObject(item, method) };
    }
    if (methods.length > 0 && raw === item) {
      delete item.query;
      delete item.additionalOperations;
    }
  }
  if (Object.keys(moved).length > 0) {
    const components = (copy.components ??= {}) as Record<string, Record<string, unknown>>;
    components.pathItems = { ...components.pathItems, ...moved };
  }
  return copy;
}
