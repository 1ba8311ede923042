import fc from 'fast-check';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import { fastFormats, fullFormats } from 'ajv-formats/dist/formats.js';
import { describe, expect, it } from 'vitest';
import { GENERATED_FORMATS, GENERATED_KEYWORDS, unsupportedKeywords } from '../../lint/schema-keywords.js';
import type { OpenApiDocument } from '../../src/contract/load-spec.js';
import { SchemaArbitraries, toJsonText, type Schema } from './schema-arbitraries.js';

/** Schemas the fixtures reach by $ref, as a contract's components. */
const doc: OpenApiDocument = {
  openapi: '3.1.0',
  info: { title: 'fixtures', version: '1' },
  paths: {},
  components: {
    schemas: {
      Base: { type: 'object', properties: { id: { type: 'integer', minimum: 1, maximum: 1000 } }, required: ['id'] },
      Name: { type: 'string', minLength: 1, maxLength: 10, pattern: '^[A-Za-z]+$' },
      Tag: { type: 'string', minLength: 1, maxLength: 30 },
    },
  },
};

/**
 * A schema per keyword (and format) of lint/schema-keywords.js: `keywords` says which it is
 * for, `breaks` maps every label of the broken values the generator must make (`v` is the value,
 * `v.0` its first item) to the keyword ajv must refuse them for.
 */
interface Fixture {
  name: string;
  keywords: string[];
  schema: Schema;
  breaks: Record<string, string>;
}

const fixtures: Fixture[] = [
  { name: 'a string', keywords: ['type'], schema: { type: 'string' }, breaks: { 'v wrong-type': 'type' } },
  {
    name: 'a nullable string',
    keywords: ['type', 'minLength'],
    schema: { type: ['string', 'null'], minLength: 2 },
    breaks: { 'v wrong-type': 'type', 'v too-short': 'minLength' },
  },
  {
    name: 'an integer or a boolean',
    keywords: ['type', 'minimum'],
    schema: { type: ['integer', 'boolean'], minimum: 0 },
    breaks: { 'v wrong-type': 'type', 'v not-an-integer': 'type', 'v below-minimum': 'minimum' },
  },
  {
    name: 'an enum of mixed types',
    keywords: ['enum'],
    schema: { enum: ['a', 'b', 3] },
    breaks: { 'v wrong-type': 'enum', 'v bad-enum': 'enum' },
  },
  { name: 'a string const', keywords: ['const'], schema: { const: 'x' }, breaks: { 'v wrong-type': 'const', 'v bad-const': 'const' } },
  {
    name: 'an object const',
    keywords: ['const'],
    schema: { const: { a: [1, null] } },
    breaks: { 'v wrong-type': 'const', 'v bad-const': 'const' },
  },
  {
    name: 'an integer multiple of 3',
    keywords: ['multipleOf', 'minimum', 'maximum'],
    schema: { type: 'integer', multipleOf: 3, minimum: -10, maximum: 100 },
    breaks: {
      'v wrong-type': 'type',
      'v not-an-integer': 'type',
      'v below-minimum': 'minimum',
      'v above-maximum': 'maximum',
      'v not-a-multiple': 'multipleOf',
    },
  },
  {
    name: 'a number multiple of 0.25',
    keywords: ['multipleOf', 'exclusiveMaximum'],
    schema: { type: 'number', multipleOf: 0.25, exclusiveMaximum: 10 },
    breaks: { 'v wrong-type': 'type', 'v above-maximum': 'exclusiveMaximum', 'v not-a-multiple': 'multipleOf' },
  },
  {
    name: 'a number strictly between 0 and 1',
    keywords: ['exclusiveMinimum', 'exclusiveMaximum'],
    schema: { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1 },
    breaks: { 'v wrong-type': 'type', 'v below-minimum': 'exclusiveMinimum', 'v above-maximum': 'exclusiveMaximum' },
  },
  {
    name: 'an integer above an exclusive minimum',
    keywords: ['exclusiveMinimum', 'maximum'],
    schema: { type: 'integer', exclusiveMinimum: 5, maximum: 9 },
    breaks: { 'v wrong-type': 'type', 'v not-an-integer': 'type', 'v below-minimum': 'exclusiveMinimum', 'v above-maximum': 'maximum' },
  },
  {
    name: 'a string with length and pattern',
    keywords: ['minLength', 'maxLength', 'pattern'],
    schema: { type: 'string', minLength: 2, maxLength: 5, pattern: '^[a-z]+$' },
    breaks: { 'v wrong-type': 'type', 'v too-short': 'minLength', 'v too-long': 'maxLength', 'v bad-pattern': 'pattern' },
  },
  ...(['date-time', 'date', 'time', 'uuid', 'email', 'uri', 'hostname', 'ipv4', 'ipv6', 'byte'] as const).map((format): Fixture => ({
    name: `format ${format}`,
    keywords: ['format', `format:${format}`],
    schema: { type: 'string', format },
    breaks: { 'v wrong-type': 'type', 'v bad-format': 'format' },
  })),
  {
    name: 'format uuid with maxLength',
    keywords: ['format', 'maxLength'],
    schema: { type: 'string', format: 'uuid', maxLength: 36 },
    breaks: { 'v wrong-type': 'type', 'v too-long': 'maxLength', 'v bad-format': 'format' },
  },
  {
    name: 'format password',
    keywords: ['format:password'],
    schema: { type: 'string', format: 'password', minLength: 8 },
    breaks: { 'v wrong-type': 'type', 'v too-short': 'minLength' },
  },
  {
    name: 'format int32',
    keywords: ['format:int32'],
    schema: { type: 'integer', format: 'int32' },
    breaks: { 'v wrong-type': 'type', 'v not-an-integer': 'type', 'v below-minimum': 'format', 'v above-maximum': 'format' },
  },
  {
    name: 'format int64 with bounds',
    keywords: ['format:int64'],
    schema: { type: 'integer', format: 'int64', minimum: 1, maximum: 9007199254740991 },
    breaks: { 'v wrong-type': 'type', 'v not-an-integer': 'type', 'v below-minimum': 'minimum', 'v above-maximum': 'maximum' },
  },
  {
    name: 'format int64 alone',
    keywords: ['format:int64'],
    schema: { type: 'integer', format: 'int64' },
    breaks: { 'v wrong-type': 'type', 'v not-an-integer': 'type' },
  },
  {
    name: 'format float',
    keywords: ['format:float'],
    schema: { type: 'number', format: 'float', minimum: -1 },
    breaks: { 'v wrong-type': 'type', 'v below-minimum': 'minimum' },
  },
  { name: 'format double', keywords: ['format:double'], schema: { type: 'number', format: 'double' }, breaks: { 'v wrong-type': 'type' } },
  {
    name: 'issue 16: tags, unique strings of 1 to 30 characters, at most 10',
    keywords: ['items', 'uniqueItems', 'maxItems', '$ref'],
    schema: { type: 'array', items: { $ref: '#/components/schemas/Tag' }, uniqueItems: true, maxItems: 10 },
    breaks: {
      'v wrong-type': 'type',
      'v too-many-items': 'maxItems',
      'v duplicate-items': 'uniqueItems',
      'v.0 wrong-type': 'type',
      'v.0 too-short': 'minLength',
      'v.0 too-long': 'maxLength',
    },
  },
  {
    name: 'unique objects from a domain of four',
    keywords: ['uniqueItems', 'minItems'],
    schema: {
      type: 'array',
      minItems: 2,
      uniqueItems: true,
      items: {
        type: 'object',
        properties: { a: { type: 'integer', minimum: 0, maximum: 3 } },
        required: ['a'],
        additionalProperties: false,
      },
    },
    breaks: {
      'v wrong-type': 'type',
      'v too-few-items': 'minItems',
      'v duplicate-items': 'uniqueItems',
      'v.0 wrong-type': 'type',
      'v.0.a missing-required': 'required',
      'v.0.<undeclared> extra-property': 'additionalProperties',
      'v.0.a wrong-type': 'type',
      'v.0.a not-an-integer': 'type',
      'v.0.a below-minimum': 'minimum',
      'v.0.a above-maximum': 'maximum',
    },
  },
  {
    name: 'a tuple with nothing after it',
    keywords: ['prefixItems', 'items'],
    schema: {
      type: 'array',
      prefixItems: [
        { type: 'integer', minimum: 0, maximum: 5 },
        { type: 'string', enum: ['a', 'b'] },
      ],
      items: false,
    },
    breaks: {
      'v wrong-type': 'type',
      'v too-many-items': 'items',
      'v.0 wrong-type': 'type',
      'v.0 not-an-integer': 'type',
      'v.0 below-minimum': 'minimum',
      'v.0 above-maximum': 'maximum',
      'v.1 wrong-type': 'type',
      'v.1 bad-enum': 'enum',
    },
  },
  {
    name: 'a tuple head with more items',
    keywords: ['prefixItems', 'items', 'minItems', 'maxItems'],
    schema: { type: 'array', prefixItems: [{ const: 'x' }], items: { type: 'integer', minimum: 0, maximum: 9 }, minItems: 2, maxItems: 4 },
    breaks: {
      'v wrong-type': 'type',
      'v too-many-items': 'maxItems',
      'v too-few-items': 'minItems',
      'v.0 wrong-type': 'const',
      'v.0 bad-const': 'const',
      'v.1 wrong-type': 'type',
      'v.1 not-an-integer': 'type',
      'v.1 below-minimum': 'minimum',
      'v.1 above-maximum': 'maximum',
    },
  },
  {
    name: 'an object with declared properties only',
    keywords: ['properties', 'required', 'additionalProperties'],
    schema: {
      type: 'object',
      properties: { name: { type: 'string', minLength: 1, maxLength: 20 }, age: { type: 'integer', minimum: 0, maximum: 200 } },
      required: ['name'],
      additionalProperties: false,
    },
    breaks: {
      'v wrong-type': 'type',
      'v.name missing-required': 'required',
      'v.<undeclared> extra-property': 'additionalProperties',
      'v.name wrong-type': 'type',
      'v.name too-short': 'minLength',
      'v.name too-long': 'maxLength',
      'v.age wrong-type': 'type',
      'v.age not-an-integer': 'type',
      'v.age below-minimum': 'minimum',
      'v.age above-maximum': 'maximum',
    },
  },
  {
    name: 'an object with 2 or 3 properties, additional ones digits',
    keywords: ['minProperties', 'maxProperties', 'additionalProperties'],
    schema: {
      type: 'object',
      properties: { a: { type: 'boolean' }, b: { type: 'boolean' }, c: { type: 'boolean' } },
      required: ['a'],
      minProperties: 2,
      maxProperties: 3,
      additionalProperties: { type: 'integer', minimum: 0, maximum: 9 },
    },
    breaks: {
      'v wrong-type': 'type',
      'v.a missing-required': 'required',
      'v too-many-properties': 'maxProperties',
      'v too-few-properties': 'minProperties',
      'v.a wrong-type': 'type',
      'v.b wrong-type': 'type',
      'v.c wrong-type': 'type',
      'v.* wrong-type': 'type',
      'v.* not-an-integer': 'type',
      'v.* below-minimum': 'minimum',
      'v.* above-maximum': 'maximum',
    },
  },
  {
    name: 'an object of at most one declared property',
    keywords: ['maxProperties'],
    schema: { type: 'object', properties: { a: { type: 'null' }, b: { type: 'null' } }, maxProperties: 1, additionalProperties: false },
    breaks: {
      'v wrong-type': 'type',
      'v too-many-properties': 'maxProperties',
      'v.<undeclared> extra-property': 'additionalProperties',
      'v.a wrong-type': 'type',
      'v.b wrong-type': 'type',
    },
  },
  {
    name: 'allOf of a $ref and an extension',
    keywords: ['allOf', '$ref'],
    schema: {
      allOf: [
        { $ref: '#/components/schemas/Base' },
        { type: 'object', properties: { code: { type: 'string', pattern: '^[A-Z]{2}$' } }, required: ['code'] },
      ],
    },
    breaks: {
      'v wrong-type': 'type',
      'v.id missing-required': 'required',
      'v.code missing-required': 'required',
      'v.id wrong-type': 'type',
      'v.id not-an-integer': 'type',
      'v.id below-minimum': 'minimum',
      'v.id above-maximum': 'maximum',
      'v.code wrong-type': 'type',
      'v.code bad-pattern': 'pattern',
    },
  },
  {
    name: 'allOf of two patterns',
    keywords: ['allOf'],
    schema: { type: 'string', maxLength: 8, allOf: [{ pattern: '^[a-z]+$' }, { pattern: 'q' }] },
    breaks: { 'v wrong-type': 'type', 'v too-long': 'maxLength', 'v bad-pattern': 'pattern' },
  },
  {
    name: 'allOf where one branch closes the object',
    keywords: ['allOf', 'additionalProperties'],
    schema: {
      allOf: [
        { type: 'object', properties: { a: { type: 'integer' } }, additionalProperties: false },
        { properties: { a: { minimum: 0, maximum: 5 }, b: { type: 'string' } } },
      ],
    },
    breaks: {
      'v wrong-type': 'type',
      'v.<undeclared> extra-property': 'additionalProperties',
      'v.a wrong-type': 'type',
      'v.a not-an-integer': 'type',
      'v.a below-minimum': 'minimum',
      'v.a above-maximum': 'maximum',
      // b's schema is false once the branches are merged: any value of it breaks the first branch.
      'v.b matches-not': 'additionalProperties',
    },
  },
  {
    name: 'a $ref with a sibling that narrows it',
    keywords: ['$ref', 'maxLength'],
    schema: { $ref: '#/components/schemas/Name', maxLength: 3 },
    breaks: { 'v wrong-type': 'type', 'v too-short': 'minLength', 'v too-long': 'maxLength', 'v bad-pattern': 'pattern' },
  },
  {
    name: 'anyOf a short string or a small integer',
    keywords: ['anyOf'],
    schema: {
      anyOf: [
        { type: 'string', maxLength: 3 },
        { type: 'integer', minimum: 0, maximum: 10 },
      ],
    },
    breaks: { 'v wrong-type': 'anyOf', 'v no-branch': 'anyOf' },
  },
  {
    name: 'oneOf multiples of 3 or of 5',
    keywords: ['oneOf'],
    schema: {
      oneOf: [
        { type: 'integer', multipleOf: 3, minimum: 0, maximum: 99 },
        { type: 'integer', multipleOf: 5, minimum: 0, maximum: 99 },
      ],
    },
    breaks: { 'v wrong-type': 'oneOf', 'v several-branches': 'oneOf', 'v no-branch': 'oneOf' },
  },
  {
    name: 'oneOf objects told apart by a const',
    keywords: ['oneOf', 'const'],
    schema: {
      type: 'object',
      oneOf: [
        {
          properties: { kind: { const: 'cat' }, lives: { type: 'integer', minimum: 1, maximum: 9 } },
          required: ['kind', 'lives'],
          additionalProperties: false,
        },
        { properties: { kind: { const: 'dog' }, good: { type: 'boolean' } }, required: ['kind'], additionalProperties: false },
      ],
    },
    breaks: { 'v wrong-type': 'type', 'v no-branch': 'oneOf' },
  },
  {
    name: 'not a reserved name',
    keywords: ['not'],
    schema: { type: 'string', maxLength: 10, not: { enum: ['admin', 'root'] } },
    breaks: { 'v wrong-type': 'type', 'v too-long': 'maxLength', 'v matches-not': 'not' },
  },
  {
    name: 'an odd digit',
    keywords: ['not', 'multipleOf'],
    schema: { type: 'integer', minimum: 0, maximum: 9, not: { multipleOf: 2 } },
    breaks: {
      'v wrong-type': 'type',
      'v not-an-integer': 'type',
      'v below-minimum': 'minimum',
      'v above-maximum': 'maximum',
      'v matches-not': 'not',
    },
  },
];

/** Ajv 2020 with each of ajv-formats' modes: fast (the server's) and full. */
const validators = [fastFormats, fullFormats].map((formats) => {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  for (const [name, format] of Object.entries(formats)) ajv.addFormat(name, format);
  ajv.addSchema({ $id: 'fixtures', components: doc.components });
  return ajv;
});

const compiled = new Map<Schema, ValidateFunction[]>();

/** The errors of each mode for a value, as JSON carries it (bigints become numbers). */
function errorsOf(schema: Schema, value: unknown): ErrorObject[][] {
  const json: unknown = JSON.parse(toJsonText(value));
  if (!compiled.has(schema)) {
    const local = JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"fixtures#/components/')) as object;
    compiled.set(
      schema,
      validators.map((ajv) => ajv.compile(local)),
    );
  }
  return compiled.get(schema)!.map((validate) => (validate(json) ? [] : validate.errors!));
}

describe('the property-test generator, keyword by keyword (checked by ajv 2020)', () => {
  const arbitraries = new SchemaArbitraries(doc);

  it('has a fixture for every keyword and format lint/schema-keywords.js lets through', () => {
    const covered = new Set(fixtures.flatMap((f) => f.keywords));
    expect(GENERATED_KEYWORDS.filter((k) => !covered.has(k))).toEqual([]);
    expect(Object.keys(GENERATED_FORMATS).filter((f) => !covered.has(`format:${f}`))).toEqual([]);
  });

  describe.each(fixtures)('$name', ({ schema, breaks }) => {
    it('makes 1000 valid values that ajv accepts', () => {
      for (const value of fc.sample(arbitraries.valid(schema), { numRuns: 1000, seed: 16 })) {
        expect(errorsOf(schema, value), toJsonText(value)).toEqual([[], []]);
      }
    });

    it('breaks it in each expected way, every broken value refused by ajv for that keyword', () => {
      const families = arbitraries.invalid(schema, 'v');
      expect(families.map((f) => f.label).sort()).toEqual(Object.keys(breaks).sort());
      for (const { label, arb } of families) {
        for (const broken of fc.sample(arb, { numRuns: 100, seed: 16 })) {
          for (const errors of errorsOf(schema, broken.value)) {
            expect(
              errors.map((e) => e.keyword),
              `${label}: ${toJsonText(broken.value)}`,
            ).toContain(breaks[label]);
          }
        }
      }
    });
  });

  it('values of a oneOf satisfy exactly one branch, and the several-branches ones two', () => {
    const schema: Schema = {
      oneOf: [
        { type: 'integer', multipleOf: 3, minimum: 0, maximum: 99 },
        { type: 'integer', multipleOf: 5, minimum: 0, maximum: 99 },
      ],
    };
    const values = fc.sample(arbitraries.valid(schema), { numRuns: 300, seed: 2 }) as number[];
    expect(values.every((v) => (v % 3 === 0) !== (v % 5 === 0))).toBe(true);
    const both = arbitraries.invalid(schema, 'v').find((f) => f.label === 'v several-branches')!;
    expect(fc.sample(both.arb, { numRuns: 100, seed: 2 }).every((b) => (b.value as number) % 15 === 0)).toBe(true);
  });

  it("refuses, with the lint rule's own message, a keyword the lint rule refuses", () => {
    const schema = { type: 'array', contains: { const: 1 } };
    const [problem] = unsupportedKeywords(schema);
    expect(problem!.message).toContain('Schema keyword "contains" is not supported');
    expect(() => arbitraries.valid(schema)).toThrow(problem!.message);
    expect(() => arbitraries.valid({ type: 'string', nullable: true })).toThrow(/nullable is OpenAPI 3.0's.*type: \[<type>, 'null'\]/);
    expect(() => arbitraries.valid({ type: 'string', format: 'iban' })).toThrow(
      /Format "iban" is not one the property-test generator makes values for/,
    );
  });

  it('refuses a schema that contains itself, naming the $ref', () => {
    const recursive: OpenApiDocument = {
      ...doc,
      components: {
        schemas: { Node: { type: 'object', properties: { children: { type: 'array', items: { $ref: '#/components/schemas/Node' } } } } },
      },
    };
    expect(() => new SchemaArbitraries(recursive).valid({ $ref: '#/components/schemas/Node' })).toThrow(
      /\$ref #\/components\/schemas\/Node leads back into a schema it is inside/,
    );
  });
});
