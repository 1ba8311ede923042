/** A JSON Schema type name. */
export type JsonType = 'null' | 'boolean' | 'object' | 'array' | 'number' | 'integer' | 'string';

/** A schema or a boolean schema (`true` accepts everything, `false` nothing). */
export type SchemaLike = Schema | boolean;

/**
 * A JSON Schema (2020-12, as OpenAPI 3.1 uses it) after its `$ref` is followed: the keywords of
 * lint/schema-keywords.js, and annotations.
 */
export interface Schema {
  $ref?: string;
  type?: JsonType | JsonType[];
  enum?: unknown[];
  const?: unknown;
  format?: string;
  multipleOf?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  items?: SchemaLike;
  prefixItems?: SchemaLike[];
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  properties?: Record<string, SchemaLike>;
  required?: string[];
  additionalProperties?: SchemaLike;
  minProperties?: number;
  maxProperties?: number;
  allOf?: SchemaLike[];
  anyOf?: SchemaLike[];
  oneOf?: SchemaLike[];
  not?: SchemaLike;
  [annotation: string]: unknown;
}
