import type { FormatName } from 'ajv-formats';
import { parameterStyle, resolveRef, usesJsonSchema2020, type OpenApiDocument } from '../contract/document.js';
import { unicodePattern } from './unicode-pattern.js';

/**
 * What the kit changes in a contract's schemas before the validator (Ajv, through
 * express-openapi-validator) compiles them: forms real contracts use that Ajv refuses to compile,
 * written as what they mean, so that an operation is not a 500 for a quirk of its contract.
 */

/** One schema object made compilable, in place. */
export function fixSchema(schema: Record<string, unknown>, openapi31: boolean): void {
  // `nullable` says nothing without a `type` (any value, null included, is already valid).
  if ('nullable' in schema && schema.type === undefined) delete schema.nullable;
  // No value is valid: Ajv refuses an empty `enum`, and takes `not: {}`.
  if (Array.isArray(schema.enum) && schema.enum.length === 0) {
    delete schema.enum;
    if (schema.not === undefined) schema.not = {};
    else schema.allOf = [...((schema.allOf as unknown[] | undefined) ?? []), { not: {} }];
  }
  // OpenAPI 3.0's boolean exclusiveMinimum/Maximum in a 3.1 document: 3.1's number form.
  if (openapi31) {
    for (const [exclusive, bound] of [
      ['exclusiveMinimum', 'minimum'],
      ['exclusiveMaximum', 'maximum'],
    ] as const) {
      if (typeof schema[exclusive] !== 'boolean') continue;
      if (schema[exclusive] === true && typeof schema[bound] === 'number') {
        schema[exclusive] = schema[bound];
        delete schema[bound];
      } else delete schema[exclusive];
    }
  }
  if (typeof schema.pattern === 'string') {
    const pattern = unicodePattern(schema.pattern);
    if (pattern === null) delete schema.pattern;
    else schema.pattern = pattern;
  }
}

/** Keywords whose values are data, not schemas. */
const DATA_KEYS = new Set(['example', 'examples', 'default', 'const', 'enum']);
/** Keywords whose values map names to schemas and other objects: every key there is a name. */
const NAME_MAPS = new Set([
  'properties',
  'patternProperties',
  '$defs',
  'definitions',
  'schemas',
  'responses',
  'parameters',
  'headers',
  'content',
  'paths',
  'mapping',
  'dependentSchemas',
  'dependentRequired',
  'dependencies',
]);

/** Applies `fix` to every object of `node` that may be a schema (not inside data keywords). */
export function visit(node: unknown, fix: (object: Record<string, unknown>) => void, namesOnly = false): void {
  if (Array.isArray(node)) {
    for (const item of node) visit(item, fix);
    return;
  }
  if (typeof node !== 'object' || node === null) return;
  const object = node as Record<string, unknown>;
  for (const [key, value] of Object.entries(object)) {
    if (namesOnly || (!DATA_KEYS.has(key) && !key.startsWith('x-'))) visit(value, fix, !namesOnly && NAME_MAPS.has(key));
  }
  if (!namesOnly) fix(object);
}

/**
 * A (copied) document without what the validator need not read and may misread: the objects
 * under `example`, `examples` and `x-` keys, where an `id` (`{ "id": "medium" }`) is, to OpenAPI
 * 3.0's validator (Ajv for JSON Schema draft 04, which walks every key), a schema's identifier,
 * and the same one twice stops the operation's validator compiling. In place.
 */
export function withoutAnnotations<T>(node: T, names = false): T {
  if (Array.isArray(node)) for (const item of node) withoutAnnotations(item);
  else if (typeof node === 'object' && node !== null) {
    const object = node as Record<string, unknown>;
    for (const [key, value] of Object.entries(object)) {
      if (typeof value !== 'object' || value === null) continue;
      // A key of a map of names (a property `x-id`, a header `X-Total`) is a name, kept.
      if (!names && (key === 'example' || key === 'examples' || key.startsWith('x-'))) delete object[key];
      else withoutAnnotations(value, !names && (NAME_MAPS.has(key) || OTHER_NAME_MAPS.has(key)));
    }
  }
  return node;
}

/** The components' maps of names besides NAME_MAPS. */
const OTHER_NAME_MAPS = new Set(['requestBodies', 'securitySchemes', 'callbacks', 'links', 'pathItems']);

/**
 * Each property of a (copied) document that is a `$ref` to a `readOnly` or `writeOnly` schema
 * (`id: { $ref: Id }`, Id read-only) made `{ allOf: [{ $ref }], readOnly: true }`, in place: the
 * validator reads the flag on the property itself (a `$ref` has no siblings in OpenAPI 3.0), to
 * require a read-only property in answers only, and a write-only one in requests only.
 */
export function flagsBesideRefs(doc: OpenApiDocument): OpenApiDocument {
  visit(doc, (schema) => {
    const properties = schema.properties as Record<string, unknown> | undefined;
    if (properties === null || typeof properties !== 'object') return;
    for (const [name, property] of Object.entries(properties)) {
      if (property === null || typeof property !== 'object' || !('$ref' in property)) continue;
      let target: Record<string, unknown> | undefined;
      try {
        target = resolveRef<Record<string, unknown> | undefined>(doc, property);
      } catch {
        continue;
      }
      for (const flag of ['readOnly', 'writeOnly'] as const) {
        if (target?.[flag] === true) properties[name] = { allOf: [property], [flag]: true };
      }
    }
  });
  return doc;
}

/** Every schema of a (copied) document made compilable, in place (see fixSchema). */
export function fixSchemas(doc: OpenApiDocument): OpenApiDocument {
  const openapi31 = usesJsonSchema2020(doc);
  visit(doc, (object) => fixSchema(object, openapi31));
  return doc;
}

/** The formats Ajv knows, with ajv-formats and express-openapi-validator's (int32, int64, float, double, byte, binary, password). */
const KNOWN_FORMATS: readonly FormatName[] = [
  'date',
  'time',
  'date-time',
  'iso-time',
  'iso-date-time',
  'duration',
  'uri',
  'uri-reference',
  'uri-template',
  'url',
  'email',
  'hostname',
  'ipv4',
  'ipv6',
  'regex',
  'uuid',
  'json-pointer',
  'json-pointer-uri-fragment',
  'relative-json-pointer',
  'byte',
  'int32',
  'int64',
  'float',
  'double',
  'password',
  'binary',
];

/** The formats a contract's schemas name that the validator does not know (`snowflake`): it takes any value for them. */
export function unknownFormats(doc: OpenApiDocument): string[] {
  const known = new Set<string>(KNOWN_FORMATS);
  const found = new Set<string>();
  visit(doc, (object) => {
    if (typeof object.format === 'string' && !known.has(object.format)) found.add(object.format);
  });
  return [...found].sort();
}

/** The patterns of a contract's schemas the validator compiles otherwise than written: read without the `u` flag, or left out when no flag makes them a regular expression. */
export function rewrittenPatterns(doc: OpenApiDocument): { rewritten: string[]; dropped: string[] } {
  const rewritten = new Set<string>();
  const dropped = new Set<string>();
  visit(doc, (object) => {
    if (typeof object.pattern !== 'string') return;
    const pattern = unicodePattern(object.pattern);
    if (pattern === null) dropped.add(object.pattern);
    else if (pattern !== object.pattern) rewritten.add(object.pattern);
  });
  return { rewritten: [...rewritten].sort(), dropped: [...dropped].sort() };
}

/** A copy of a schema with its `$ref`s followed (a circular one left as it is), and `readOnly`/`writeOnly` left out. */
function inlined(doc: OpenApiDocument, schema: unknown, seen: readonly string[] = []): unknown {
  if (Array.isArray(schema)) return schema.map((item) => inlined(doc, item, seen));
  if (typeof schema !== 'object' || schema === null) return schema;
  const ref = (schema as { $ref?: unknown }).$ref;
  if (typeof ref === 'string') {
    if (seen.includes(ref) || seen.length > 32) return schema;
    return inlined(doc, resolveRef(doc, schema, ref), [...seen, ref]);
  }
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'readOnly' || key === 'writeOnly') continue;
    copy[key] = DATA_KEYS.has(key) ? value : inlined(doc, value, seen);
  }
  return copy;
}

/**
 * A parameter as the validator reads it: `style` and `explode` at OpenAPI's defaults when the
 * contract leaves them out (see parameterStyle); a query parameter's value taken as decoded (`allowReserved`: a space sent as `+` is a space); its
 * schema inlined without `readOnly`/`writeOnly`, which describe bodies, not parameters; and
 * every object branch of its `anyOf`/`oneOf`/`allOf` given `properties`, which the validator
 * reads for a query parameter; an `enum` of numbers or booleans without a `type` (nothing says
 * to convert the text) also taking each value's text (`true` for true).
 */
export function validatorParameter(doc: OpenApiDocument, parameter: Record<string, unknown>): Record<string, unknown> {
  const style = parameterStyle(parameter);
  const fixed: Record<string, unknown> = { ...parameter, style, explode: parameter.explode ?? style === 'form' };
  if (parameter.in === 'query') fixed.allowReserved = true;
  if (parameter.schema !== undefined) {
    const schema = inlined(doc, parameter.schema) as Record<string, unknown>;
    for (const key of ['anyOf', 'oneOf', 'allOf']) {
      for (const branch of (schema[key] as Record<string, unknown>[] | undefined) ?? []) {
        if (branch.type === 'object' && branch.properties === undefined) branch.properties = {};
      }
    }
    if (schema.type === undefined && Array.isArray(schema.enum) && schema.enum.some((v) => typeof v === 'number' || typeof v === 'boolean'))
      schema.enum = [...new Set([...(schema.enum as unknown[]), ...(schema.enum as unknown[]).map(String)])];
    fixed.schema = schema;
  }
  return fixed;
}
