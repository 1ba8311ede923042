import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import ajvFormats from 'ajv-formats';
import { generateSync, type JsonSchema } from 'json-schema-faker';
import { resolveRef, usesJsonSchema2020, type OpenApiDocument } from '../contract/document.js';
import { fixSchema, unknownFormats, visit } from '../server/schema-fixes.js';

/** The largest float (IEEE 754 binary32), and its smallest normal, for OpenAPI's `float`. */
const FLOAT_MAX = (2 - 2 ** -23) * 2 ** 127;
const FLOAT_MIN = 2 ** -126;
const isFloat = (n: number) => n === 0 || (Math.abs(n) >= FLOAT_MIN && Math.abs(n) <= FLOAT_MAX);

/**
 * OpenAPI's numeric formats, which ajv-formats does not define, as express-openapi-validator
 * checks them, and `int64` once more as JSON can carry it exactly (safe integers): a value between
 * the two counts as neither valid nor invalid.
 */
const NUMBER_FORMATS: Record<string, (n: number) => boolean>[] = [
  { int64: (n: number) => Number.isInteger(n) && Math.abs(n) <= 2 ** 63 },
  { int64: (n: number) => Number.isSafeInteger(n) },
].map((mode) => ({
  int32: (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31,
  float: isFloat,
  double: () => true,
  ...mode,
}));

/** Why a value was refused: the keyword (`maxLength`, `required`, …) and the path of the value it is about. */
export interface Refusal {
  keyword: string;
  at: string[];
}

/** The longest string json-schema-faker makes. */
const GENERATED_MAX_LENGTH = 64;
/** The most items json-schema-faker puts in an array. */
const GENERATED_MAX_ITEMS = 10;

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
    // As the server's validator reads it (and OpenAPI 3.0.3 says): an `enum` without null still refuses null.
    if (schema.nullable === true && typeof schema.type === 'string') schema.type = [schema.type, 'null'];
    delete schema.nullable;
  });
  return copy;
}

/**
 * `node`, a copy of schemas, with no string allowed past GENERATED_MAX_LENGTH unless its
 * minLength asks for more, and no array past GENERATED_MAX_ITEMS unless its minItems does:
 * json-schema-faker makes a string as long as its maxLength allows and then cuts it to its own
 * `maxLength` option (86 ms a value where maxLength is 150,000), and an array of as many items as
 * a maxItems allows (96,559 of 100,000, 5.6 s for 30 values), too large for a server's body limit.
 */
function smallValues<T>(node: T): T {
  const capped = (most: number, least: unknown) => Math.max(most, typeof least === 'number' ? least : 0);
  visit(node, (schema) => {
    if (typeof schema.maxLength === 'number' && schema.maxLength > GENERATED_MAX_LENGTH) {
      schema.maxLength = capped(GENERATED_MAX_LENGTH, schema.minLength);
    }
    if (typeof schema.maxItems === 'number' && schema.maxItems > GENERATED_MAX_ITEMS) {
      schema.maxItems = capped(GENERATED_MAX_ITEMS, schema.minItems);
    }
  });
  return node;
}

/**
 * The contract's schemas as a judge of values (Ajv, with ajv-formats and OpenAPI's formats) and
 * as a source of them (the contract's examples, else json-schema-faker's, each kept only when
 * Ajv accepts it). Schemas are the contract's own, `$ref`s to its components included.
 */
export class ContractSchemas {
  /** Ajv with ajv-formats' `fast` formats and express-openapi-validator's int64, then with `full` ones and safe integers. */
  private readonly modes: Ajv2020[];
  private readonly compiled = new Map<string, ValidateFunction[]>();
  private readonly components: Record<string, unknown>;
  /** The paths as JSON Schema, where a schema refers into them; else undefined. */
  private readonly paths: Record<string, unknown> | undefined;
  /** The components as json-schema-faker is given them (smallValues), made on the first value it makes. */
  private generatedComponents?: Record<string, unknown>;
  private readonly openapi31: boolean;

  constructor(private readonly doc: OpenApiDocument) {
    this.openapi31 = usesJsonSchema2020(doc);
    this.components = asJsonSchema(doc.components ?? {}, this.openapi31);
    // A contract whose schemas refer into its paths (into another operation's answer) has them resolved there.
    const paths = JSON.stringify(doc.components ?? {}).includes('"#/paths/') || JSON.stringify(doc.paths ?? {}).includes('"#/paths/');
    this.paths = paths ? asJsonSchema(doc.paths ?? {}, this.openapi31) : undefined;
    this.modes = (['fast', 'full'] as const).map((mode, i) => {
      const ajv = new Ajv2020({ strict: false, allErrors: true });
      ajvFormats.default(ajv, { mode });
      for (const [name, validate] of Object.entries(NUMBER_FORMATS[i]!)) ajv.addFormat(name, { type: 'number', validate });
      // Formats Ajv does not know (`snowflake`) take any value, as the server's validator takes them, without a warning each.
      for (const name of ['password', 'binary', ...unknownFormats(doc)]) ajv.addFormat(name, true);
      ajv.addSchema({ $id: 'contract', components: this.components, ...(this.paths ? { paths: this.paths } : {}) });
      return ajv;
    });
  }

  /** What is wrong with `value` for `schema` (`/name must NOT have fewer than 1 characters`), by the stricter judge; none when it is valid. */
  errors(schema: unknown, value: unknown): string[] {
    const validate = this.validators(schema)[1]!;
    if (validate(value)) return [];
    return (validate.errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message ?? 'is invalid'}`);
  }

  /** Whether both judges accept the value. */
  accepts(schema: unknown, value: unknown): boolean {
    const json = plain(value);
    return this.validators(schema).every((validate) => validate(json));
  }

  /** Why both judges refuse the value (the errors of both), or null when one accepts it. */
  refusals(schema: unknown, value: unknown): Refusal[] | null {
    const json = plain(value);
    const errors: ErrorObject[] = [];
    for (const validate of this.validators(schema)) {
      if (validate(json)) return null;
      errors.push(...(validate.errors ?? []));
    }
    return errors.map((e) => ({ keyword: e.keyword, at: location(e) }));
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
    for (let seed = 1; seed <= SEEDS; seed++) {
      const made = this.generate(schema, seed);
      if (made !== NOTHING && this.accepts(schema, made)) return made;
    }
    return undefined;
  }

  /** json-schema-faker's value for `schema` and `seed`, or NOTHING when it gives up. */
  generate(schema: unknown, seed: number): unknown {
    this.generatedComponents ??= smallValues(structuredClone(this.components));
    // The schema under allOf: at the root beside the components, a schema that says nothing (any value) had
    // json-schema-faker make a value of the root itself, the whole components object.
    const root = {
      allOf: [smallValues(asJsonSchema(schema ?? {}, this.openapi31)) as JsonSchema],
      components: this.generatedComponents,
      ...(this.paths ? { paths: this.paths } : {}),
    } as JsonSchema;
    try {
      // Strings no longer than a URL or a header carries comfortably (a schema's maxLength may be 150,000).
      return generateSync(root, { seed, maxLength: GENERATED_MAX_LENGTH });
    } catch {
      return NOTHING;
    }
  }

  private validators(schema: unknown): ValidateFunction[] {
    const key = JSON.stringify(schema ?? {});
    let validators = this.compiled.get(key);
    if (!validators) {
      const local = asJsonSchema(
        JSON.parse(key.replaceAll('"#/components/', '"contract#/components/').replaceAll('"#/paths/', '"contract#/paths/')) as object,
        this.openapi31,
      );
      validators = this.modes.map((ajv) => ajv.compile(local));
      this.compiled.set(key, validators);
    }
    return validators;
  }
}

/** What json-schema-faker gave when it gave up on a seed. */
export const NOTHING = Symbol('nothing');

/** The path of the value an error is about: its instancePath, and the property it names when it names one (a missing or an extra one). */
function location(error: ErrorObject): string[] {
  const at =
    error.instancePath === ''
      ? []
      : error.instancePath
          .slice(1)
          .split('/')
          .map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'));
  const params = error.params as Record<string, unknown>;
  const named = params.missingProperty ?? params.additionalProperty ?? params.unevaluatedProperty ?? params.propertyName;
  return typeof named === 'string' ? [...at, named] : at;
}

/** The value as JSON carries it: a bigint (an integer past 2^53, written exactly) becomes the nearest number. */
function plain(value: unknown): unknown {
  if (typeof value === 'bigint') return Number(value);
  if (Array.isArray(value)) return value.map(plain);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v)]));
  return value;
}
