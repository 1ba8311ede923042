import type { FormatName } from 'ajv-formats';
import { resolveRef, type OpenApiDocument } from '../contract/document.js';

/**
 * What the kit changes in a contract's schemas before the validator (Ajv, through
 * express-openapi-validator) compiles them: forms real contracts use that Ajv refuses to compile,
 * written as what they mean, so that an operation is not a 500 for a quirk of its contract.
 */

/** Characters a `\` may stand before in a pattern with ECMA-262's `u` flag (SyntaxCharacter and `/`). */
const SYNTAX = new Set('^$\\.*+?()[]{}|/');

/**
 * A pattern as Ajv compiles it (with the `u` flag): `^[a-z\-\:]+$` loses the backslash before
 * characters that need none, which the `u` flag refuses (`\:`, `\@`, `\-` outside a class). A
 * pattern that compiles with it, or not even without it, is returned as it is.
 */
function unicodePattern(pattern: string): string {
  try {
    new RegExp(pattern, 'u');
    return pattern;
  } catch {
    // Fixed below, if it is only identity escapes.
  }
  try {
    new RegExp(pattern);
  } catch {
    return pattern;
  }
  let fixed = '';
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\') {
      const next = pattern[i + 1] ?? '';
      fixed += SYNTAX.has(next) || /[A-Za-z0-9]/.test(next) || (inClass && next === '-') ? `\\${next}` : next;
      i++;
      continue;
    }
    if (c === '[' && !inClass) inClass = true;
    else if (c === ']' && inClass) inClass = false;
    fixed += c;
  }
  try {
    new RegExp(fixed, 'u');
    return fixed;
  } catch {
    return pattern;
  }
}

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
  if (typeof schema.pattern === 'string') schema.pattern = unicodePattern(schema.pattern);
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

/** Every schema of a (copied) document made compilable, in place (see fixSchema). */
export function fixSchemas(doc: OpenApiDocument): OpenApiDocument {
  const openapi31 = doc.openapi.startsWith('3.1');
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
 * contract leaves them out (form for query and cookie, simple for path and header); a query
 * parameter's value taken as decoded (`allowReserved`: a space sent as `+` is a space); its
 * schema inlined without `readOnly`/`writeOnly`, which describe bodies, not parameters; and
 * every object branch of its `anyOf`/`oneOf`/`allOf` given `properties`, which the validator
 * reads for a query parameter.
 */
export function validatorParameter(doc: OpenApiDocument, parameter: Record<string, unknown>): Record<string, unknown> {
  const style = parameter.style ?? (parameter.in === 'query' || parameter.in === 'cookie' ? 'form' : 'simple');
  const fixed: Record<string, unknown> = { ...parameter, style, explode: parameter.explode ?? style === 'form' };
  if (parameter.in === 'query') fixed.allowReserved = true;
  if (parameter.schema !== undefined) {
    const schema = inlined(doc, parameter.schema) as Record<string, unknown>;
    for (const key of ['anyOf', 'oneOf', 'allOf']) {
      for (const branch of (schema[key] as Record<string, unknown>[] | undefined) ?? []) {
        if (branch.type === 'object' && branch.properties === undefined) branch.properties = {};
      }
    }
    fixed.schema = schema;
  }
  return fixed;
}
