import type { OpenApiDocument } from './document.js';

/** A local pointer's segments after `#/`, unescaped. */
const segmentsOf = (pointer: string) =>
  pointer
    .slice(2)
    .split('/')
    .map((segment) => {
      let text = segment;
      try {
        text = decodeURIComponent(segment);
      } catch {
        // Not percent-encoded.
      }
      return text.replaceAll('~1', '/').replaceAll('~0', '~');
    });

/**
 * Where a `$ref` is hoisted to, if anywhere: `schemas` for one that reaches inside a schema rather
 * than naming a component (below a component schema, `#/components/schemas/A/definitions/b`, or
 * below the `schema` of a path's or a component's parameter, body or answer); `parameters` for one
 * naming a parameter of a path (`#/paths/~1owners~1search/get/parameters/0`), which
 * openapi-typescript types as an index into an optional `query` that does not compile; and the
 * same for a path's answer, body, header or example.
 */
function hoistedTo(ref: string): 'schemas' | 'parameters' | 'responses' | 'requestBodies' | 'headers' | 'examples' | undefined {
  if (!ref.startsWith('#/')) return undefined;
  const segments = segmentsOf(ref);
  if (segments[0] === 'components' && segments[1] === 'schemas') return segments.length > 3 ? 'schemas' : undefined;
  if (segments.includes('schema')) return 'schemas';
  if (segments[0] !== 'paths') return undefined;
  // Any other part of a path: the validator would need the contract's paths beside the operation's, path keys with `?` included.
  const parent = segments.at(-2);
  if (parent === 'parameters' || parent === 'responses' || parent === 'headers' || parent === 'examples') return parent;
  return segments.at(-1) === 'requestBody' ? 'requestBodies' : undefined;
}

/** Words of a pointer that say nothing of what it names. */
const NOISE = new Set([
  'components',
  'schemas',
  'paths',
  'definitions',
  '$defs',
  'properties',
  'responses',
  'content',
  'schema',
  'requestBody',
  'parameters',
]);

/** Every `$ref` string in `node`, with a way to replace it. */
function* refsIn(node: unknown): Generator<{ ref: string; set: (ref: string) => void }> {
  if (Array.isArray(node)) {
    for (const item of node) yield* refsIn(item);
  } else if (node !== null && typeof node === 'object') {
    const object = node as Record<string, unknown>;
    if (typeof object.$ref === 'string') yield { ref: object.$ref, set: (ref) => (object.$ref = ref) };
    for (const value of Object.values(object)) yield* refsIn(value);
  }
}

/**
 * The contract with each schema that a `$ref` reaches inside another component schema
 * (`#/components/schemas/Account/definitions/identifiers`, as JSON Schema's `definitions` are
 * often referred to) made a component of its own (`Account_identifiers`), and each parameter a
 * `$ref` takes from a path made a component parameter, those `$ref`s pointed at them:
 * openapi-typescript writes such a `$ref` as an indexed access type
 * (`components["schemas"]["Account"]["definitions"]`, `paths["/a"]["get"]["parameters"]["query"]["b"]`)
 * that does not compile, and the validator cannot resolve the first from the schema it is in.
 * Undefined when the contract has no such `$ref`. With `intoPaths`, only the `$ref`s into the
 * contract's paths are hoisted: what a tool that resolves any pointer (Prism) needs once the
 * paths are rewritten.
 */
export function hoistDeepSchemaRefs(doc: OpenApiDocument, { intoPaths = false } = {}): OpenApiDocument | undefined {
  const deep = [...refsIn(doc)].filter(({ ref }) => hoistedTo(ref) !== undefined && (!intoPaths || ref.startsWith('#/paths/')));
  if (deep.length === 0) return undefined;
  const copy = structuredClone(doc) as OpenApiDocument & { components?: Record<string, Record<string, unknown> | undefined> };
  const components = (copy.components ??= {});
  const names = new Map<string, string>();
  for (const { ref } of deep) {
    if (names.has(ref)) continue;
    const kind = hoistedTo(ref)!;
    const segments = segmentsOf(ref);
    let target: unknown = copy;
    for (const segment of segments) target = (target as Record<string, unknown> | undefined)?.[segment];
    if (target === null || typeof target !== 'object') continue;
    // A path (`/register`) says what it names; a media type (`application/json`) does not; a parameter, its name.
    const own = (target as { name?: unknown }).name;
    const words =
      kind === 'parameters' && typeof own === 'string' ? [own] : segments.filter((s) => !NOISE.has(s) && !/^[^/]+\/[^/]+$/.test(s));
    const base =
      words
        .join('_')
        .replace(/[^\w.-]+/g, '_')
        .replace(/^_+|_+$/g, '') || 'Schema';
    const into = (components[kind] ??= {});
    let name = base;
    for (let n = 2; name in into; n++) name = `${base}_${n}`;
    into[name] = structuredClone(target);
    names.set(ref, `#/components/${kind}/${name}`);
  }
  for (const { ref, set } of refsIn(copy)) {
    const hoisted = names.get(ref);
    if (hoisted !== undefined) set(hoisted);
  }
  return copy;
}
