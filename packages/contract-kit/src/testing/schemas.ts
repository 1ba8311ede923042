import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import ajvFormats from 'ajv-formats';
import { generateSync, type JsonSchema } from 'json-schema-faker';
import { resolveRef, type OpenApiDocument } from '../contract/document.js';
import { fixSchema, visit } from '../server/schema-fixes.js';

/** OpenAPI's own formats, checked as the server's validator checks them; JSON carries int64 exactly only up to 2^53. */
const NUMBER_FORMATS: Record<string, (n: number) => boolean> = {
  int32: (n) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31,
  int64: (n) => Number.isSafeInteger(n),
  float: (n) => Number.isFinite(n),
  double: (n) => Number.isFinite(n),
};
const STRING_FORMATS: Record<string, (s: string) => boolean> = {
  byte: (s) => /^[A-Za-z0-9+/]*={0,2}$/.test(s) && s.length % 4 === 0,
  binary: () => true,
  password: () => true,
};

/** Seeds json-schema-faker is given before a schema is taken as one it makes no value for. */
const SEEDS = 30;

/**
 * A copy of schemas of a contract (a schema, or the components) as JSON Schema 2020-12, which
 * Ajv compiles for both OpenAPI versions: the server's fixes of quirks, and OpenAPI 3.0's
 * `nullable` and boolean `exclusiveMinimum`/`exclusiveMaximum` written as 3.1 writes them.
 */
function asJsonSchema<T>(node: T, openapi31: boolean): T {
  const copy = structuredClone(node);
  visit(copy, (schema) => {
    // Ajv compiles 2020-12, which writes exclusiveMinimum and exclusiveMaximum as numbers, in either version.
    fixSchema(schema, true);
    if (openapi31) return;
    if (schema.nullable === true && typeof schema.type === 'string') {
      schema.type = [schema.type, 'null'];
      if (Array.isArray(schema.enum) && !schema.enum.includes(null)) schema.enum = [...(schema.enum as unknown[]), null];
    }
    delete schema.nullable;
  });
  return copy;
}

/**
 * The contract's schemas as a judge of values (Ajv, with ajv-formats and OpenAPI's formats) and
 * as a source of them (the contract's examples, else json-schema-faker's, each kept only when
 * Ajv accepts it). Schemas are the contract's own, `$ref`s to its components included.
 */
export class ContractSchemas {
  private readonly ajv: Ajv2020;
  private readonly compiled = new Map<string, ValidateFunction>();
  private readonly components: Record<string, unknown>;
  private readonly openapi31: boolean;

  constructor(private readonly doc: OpenApiDocument) {
    this.openapi31 = doc.openapi.startsWith('3.1');
    this.components = asJsonSchema(doc.components ?? {}, this.openapi31);
    this.ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
    ajvFormats.default(this.ajv);
    for (const [name, validate] of Object.entries(NUMBER_FORMATS)) this.ajv.addFormat(name, { type: 'number', validate });
    for (const [name, validate] of Object.entries(STRING_FORMATS)) this.ajv.addFormat(name, { type: 'string', validate });
    this.ajv.addSchema({ $id: 'contract', components: this.components });
  }

  /** What is wrong with `value` for `schema` (`/name must NOT have fewer than 1 characters`); none when it is valid. */
  errors(schema: unknown, value: unknown): string[] {
    const validate = this.compile(schema);
    if (validate(value)) return [];
    return (validate.errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message ?? 'is invalid'}`);
  }

  accepts(schema: unknown, value: unknown): boolean {
    return this.compile(schema)(value);
  }

  /**
   * A value `schema` accepts: the first of `examples` it accepts, else its own `example`,
   * `examples`, `default`, `const` or first `enum` value, else one of json-schema-faker's.
   * Undefined when none is found.
   */
  sample(schema: unknown, examples: unknown[] = []): unknown {
    const own = resolveRef<Record<string, unknown> | undefined>(this.doc, schema) ?? {};
    const candidates: unknown[] = [
      ...examples,
      own.example,
      ...(Array.isArray(own.examples) ? (own.examples as unknown[]) : []),
      own.default,
      own.const,
      ...(Array.isArray(own.enum) ? (own.enum as unknown[]).slice(0, 1) : []),
    ].filter((v) => v !== undefined);
    const found = candidates.find((v) => this.accepts(schema, v));
    if (found !== undefined) return found;
    const root = { ...asJsonSchema(schema ?? {}, this.openapi31), components: this.components } as JsonSchema;
    for (let seed = 1; seed <= SEEDS; seed++) {
      let made: unknown;
      try {
        made = generateSync(root, { seed });
      } catch {
        continue;
      }
      if (made !== undefined && this.accepts(schema, made)) return made;
    }
    return undefined;
  }

  private compile(schema: unknown): ValidateFunction {
    const key = JSON.stringify(schema ?? {});
    let validate = this.compiled.get(key);
    if (!validate) {
      const schema = asJsonSchema(JSON.parse(key.replaceAll('"#/components/', '"contract#/components/')) as object, this.openapi31);
      validate = this.ajv.compile(schema);
      this.compiled.set(key, validate);
    }
    return validate;
  }
}
