import type { OpenApiDocument } from '../contract/document.js';

/**
 * A copy of the contract in which no `pattern` runs on a string that already failed its
 * `maxLength`: each schema with both becomes `{ maxLength, if: { maxLength }, then: { pattern } }`.
 * The strings it accepts are the same; what changes is the work spent on a refused one. The
 * validator reports every error (allErrors), so without this a 16 KiB name would still be
 * matched against the pattern after its length had already refused it. The `if` keyword's own
 * error ("must match then schema") says nothing the `then` errors do not; the error handler
 * leaves it out ({@link isLengthGuardError}).
 */
export function lengthBeforePattern(doc: OpenApiDocument): OpenApiDocument {
  return guard(structuredClone(doc)) as OpenApiDocument;
}

/** Keywords whose values are data, not schemas: a `pattern` inside them is not the keyword. */
const DATA_KEYS = new Set(['example', 'examples', 'default', 'const', 'enum']);
/** Keywords whose values map names to schemas, responses or parameters: every key there is a name. */
const NAME_MAPS = new Set([
  'properties',
  'patternProperties',
  '$defs',
  'schemas',
  'responses',
  'parameters',
  'headers',
  'content',
  'paths',
]);

function guard(node: unknown, namesOnly = false): unknown {
  if (Array.isArray(node)) return node.map((item) => guard(item));
  if (typeof node !== 'object' || node === null) return node;
  const object = node as Record<string, unknown>;
  for (const [key, value] of Object.entries(object)) {
    // A property named `default` or `enum` is a schema; the keyword `default` is data.
    if (namesOnly || (!DATA_KEYS.has(key) && !key.startsWith('x-'))) object[key] = guard(value, !namesOnly && NAME_MAPS.has(key));
  }
  const { pattern, maxLength } = object;
  if (typeof pattern !== 'string' || typeof maxLength !== 'number') return object;
  const { pattern: _moved, ...rest } = object;
  const lengthGuard = { if: { maxLength }, then: { pattern } };
  if ('if' in rest || 'then' in rest || 'else' in rest) return { ...rest, allOf: [...((rest.allOf as unknown[]) ?? []), lengthGuard] };
  return { ...rest, ...lengthGuard };
}

/** Whether a validator error is the `if` of a {@link lengthBeforePattern} guard. */
export function isLengthGuardError(error: { errorCode?: string }): boolean {
  return error.errorCode === 'if.openapi.validation';
}
