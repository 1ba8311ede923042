import { IGNORED_KEYWORDS } from '../../lint/schema-keywords.js';
import type { JsonType, Schema, SchemaLike } from './schema.js';

/** Thrown when schemas that must all hold can hold together for no value (types or constants that exclude each other). */
export class UnsatisfiableError extends Error {}

const IGNORED = new Set(IGNORED_KEYWORDS);
const LOWER_BOUNDS = new Set(['minimum', 'exclusiveMinimum', 'minLength', 'minItems', 'minProperties']);
const UPPER_BOUNDS = new Set(['maximum', 'exclusiveMaximum', 'maxLength', 'maxItems', 'maxProperties']);
/** Keywords merged after the others, because what each branch means by them depends on its other keywords. */
const POSITIONAL = new Set(['properties', 'additionalProperties', 'prefixItems', 'items']);

/** JSON text with object keys sorted: equal for values JSON Schema calls equal (`enum`, `const`, `uniqueItems`). */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

/** The types a `type` keyword allows, or null when it is absent. */
export function typeList(type: Schema['type']): JsonType[] | null {
  if (type === undefined) return null;
  return [...new Set(Array.isArray(type) ? type : [type])];
}

/** Values that satisfy every one of the schemas: `allOf` of them, or `true` (no constraint), or the one schema itself. */
function allOf(schemas: (SchemaLike | undefined)[]): SchemaLike {
  const kept = schemas.filter(
    (s): s is SchemaLike => s !== undefined && s !== true && !(typeof s === 'object' && Object.keys(s).length === 0),
  );
  if (kept.some((s) => s === false)) return false;
  if (kept.length === 0) return true;
  return kept.length === 1 ? kept[0]! : { allOf: kept };
}

/**
 * One schema that accepts exactly the values all the given schemas accept (`allOf`, written
 * out), so that values can be generated for it: bounds take the tighter, `required` the union,
 * `type` and `enum` the intersection, and a property, item or additional property is held to
 * what every schema says of it (`additionalProperties` included: in JSON Schema it speaks of the
 * properties its own schema does not declare). What cannot be written as one keyword (two
 * patterns, two `oneOf`s) stays in an `allOf` of the leftovers, which the generator applies as a
 * filter. The schemas must be resolved (no `$ref` at their top).
 * @throws UnsatisfiableError when the types, enums or constants leave no value.
 */
export function mergeSchemas(schemas: Schema[]): Schema {
  const merged: Record<string, unknown> = {};
  const leftovers: SchemaLike[] = [];
  for (const schema of schemas) {
    for (const [keyword, value] of Object.entries(schema)) {
      if (POSITIONAL.has(keyword)) continue;
      const current = merged[keyword];
      if (current === undefined) {
        merged[keyword] = keyword === 'allOf' ? undefined : value;
        if (keyword === 'allOf') leftovers.push(...(value as SchemaLike[]));
        continue;
      }
      if (IGNORED.has(keyword) || keyword.startsWith('x-')) continue;
      if (LOWER_BOUNDS.has(keyword)) merged[keyword] = Math.max(current as number, value as number);
      else if (UPPER_BOUNDS.has(keyword)) merged[keyword] = Math.min(current as number, value as number);
      else if (keyword === 'type') merged.type = intersectTypes(current as Schema['type'], value as Schema['type']);
      else if (keyword === 'required') merged.required = [...new Set([...(current as string[]), ...(value as string[])])];
      else if (keyword === 'uniqueItems') merged.uniqueItems = current === true || value === true;
      else if (keyword === 'enum') {
        const other = new Set((value as unknown[]).map(canonicalJson));
        merged.enum = (current as unknown[]).filter((v) => other.has(canonicalJson(v)));
        if ((merged.enum as unknown[]).length === 0)
          throw new UnsatisfiableError(`no value is in both enums ${canonicalJson(current)} and ${canonicalJson(value)}`);
      } else if (keyword === 'const') {
        if (canonicalJson(current) !== canonicalJson(value))
          throw new UnsatisfiableError(`no value is both const ${canonicalJson(current)} and ${canonicalJson(value)}`);
      } else if (keyword === 'not') merged.not = { anyOf: [current, value] };
      else if (keyword === 'allOf') leftovers.push(...(value as SchemaLike[]));
      else if (keyword === 'multipleOf' && Number.isInteger(current) && Number.isInteger(value))
        merged.multipleOf = lcm(current as number, value as number);
      else if (canonicalJson(current) !== canonicalJson(value)) leftovers.push({ [keyword]: value });
    }
  }
  delete merged.allOf;
  mergeProperties(schemas, merged);
  mergeItems(schemas, merged);
  if (leftovers.length > 0) merged.allOf = leftovers;
  return merged;
}

function intersectTypes(a: Schema['type'], b: Schema['type']): JsonType[] {
  const left = typeList(a)!;
  const right = typeList(b)!;
  const both = left.filter((t) => right.includes(t));
  // Every integer is a number: integer with number leaves integer.
  if (
    !both.includes('integer') &&
    ((left.includes('integer') && right.includes('number')) || (left.includes('number') && right.includes('integer')))
  )
    both.push('integer');
  if (both.length === 0) throw new UnsatisfiableError(`no value has a type in both ${JSON.stringify(a)} and ${JSON.stringify(b)}`);
  return both;
}

/** What each schema says of a property `name`: its own schema for it, or its additionalProperties. */
function mergeProperties(schemas: Schema[], merged: Record<string, unknown>): void {
  const objects = schemas.filter((s) => s.properties !== undefined || s.additionalProperties !== undefined);
  if (objects.length === 0) return;
  const names = [...new Set(objects.flatMap((s) => Object.keys(s.properties ?? {})))];
  if (names.length > 0) {
    merged.properties = Object.fromEntries(
      names.map((name) => [
        name,
        allOf(objects.map((s) => (s.properties && Object.hasOwn(s.properties, name) ? s.properties[name] : s.additionalProperties))),
      ]),
    );
  }
  const additional = allOf(objects.map((s) => s.additionalProperties));
  if (additional !== true) merged.additionalProperties = additional;
}

/** What each schema says of the item at each position: its prefixItems entry there, or its items. */
function mergeItems(schemas: Schema[], merged: Record<string, unknown>): void {
  const arrays = schemas.filter((s) => s.prefixItems !== undefined || s.items !== undefined);
  if (arrays.length === 0) return;
  const length = Math.max(0, ...arrays.map((s) => s.prefixItems?.length ?? 0));
  if (length > 0) {
    merged.prefixItems = Array.from({ length }, (_, i) =>
      allOf(arrays.map((s) => (s.prefixItems && i < s.prefixItems.length ? s.prefixItems[i] : s.items))),
    );
  }
  const items = allOf(arrays.map((s) => s.items));
  if (items !== true) merged.items = items;
}

function gcd(a: number, b: number): number {
  return b === 0 ? Math.abs(a) : gcd(b, a % b);
}

function lcm(a: number, b: number): number {
  return Math.abs(a * b) / gcd(a, b);
}
