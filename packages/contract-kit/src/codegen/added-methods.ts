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

/**
 * What client.ts gains for the operations of methods openapi-fetch calls by no name (OpenAPI 3.2's
 * `query`, `additionalOperations`): `createOperations(client)`, each such operation by its name,
 * sent through openapi-fetch's `request` with its method and typed as addedMethodPlace types it.
 * Null where the contract has none.
 */
export function addedMethodsClient(operations: readonly Operation[]): string | null {
  const added = operations.filter((op) => isAddedMethod(op.method));
  if (added.length === 0) return null;
  const entries = added.map((op) => {
    const place = addedMethodPlace(op);
    const item = `components["pathItems"][${JSON.stringify(place.item)}]`;
    const required = op.parameters.some((p) => p.required) || op.requestBody?.required === true;
    return (
      `  /** ${op.method.toUpperCase()} ${op.path.replace(/\*\//g, '*\\/')} */\n` +
      `  ${op.name}: (init${required ? '' : '?'}: MaybeOptionalInit<${item}, ${JSON.stringify(place.method)}>) =>\n` +
      `    client.request(${JSON.stringify(op.method)} as never, ${JSON.stringify(op.path)} as never, init as never) as unknown as Promise<\n` +
      `      FetchResponse<${item}[${JSON.stringify(place.method)}], NonNullable<typeof init>, \`\${string}/\${string}\`>\n` +
      '    >,\n'
    );
  });
  return (
    "\n/** The operations of methods openapi-fetch calls by no name (OpenAPI 3.2's QUERY, additionalOperations), by their names: each returns { data, error, response }. */\n" +
    'export const createOperations = (client: ReturnType<typeof createClient<paths>>) => ({\n' +
    `${entries.join('')}});\n`
  );
}
