import fc from 'fast-check';
import { resolveRef, type OpenApiDocument } from '../../src/spec/load-spec.js';

/** A JSON Schema (2020-12, as OpenAPI 3.1 uses it) after its `$ref` is followed. */
export interface Schema {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  format?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  properties?: Record<string, unknown>;
  required?: string[];
  additionalProperties?: boolean | unknown;
  items?: unknown;
  minItems?: number;
  maxItems?: number;
}

/**
 * A value that breaks its schema, with what was broken: `field` is where (`body.name`,
 * `query.limit`), `kind` how.
 */
export interface Broken<T = unknown> {
  value: T;
  kind: MutationKind;
  field: string;
}

/** One way of breaking a schema: its label (`body.name too-long`) and the broken values. */
export interface BrokenFamily {
  label: string;
  arb: fc.Arbitrary<Broken>;
}

export type MutationKind =
  | 'wrong-type'
  | 'not-an-integer'
  | 'below-minimum'
  | 'above-maximum'
  | 'too-short'
  | 'too-long'
  | 'bad-pattern'
  | 'bad-enum'
  | 'bad-const'
  | 'missing-required'
  | 'extra-property'
  | 'too-many-items'
  | 'too-few-items'
  | 'repeated'
  | 'not-json'
  | 'no-body'
  | 'wrong-content-type'
  | 'bad-key';

/** Keywords that only document a schema: they constrain nothing the generator must honour. */
const ANNOTATIONS = new Set(['description', 'example', 'examples', 'default', 'title', 'deprecated', 'readOnly', 'writeOnly', '$comment']);
const KNOWN = new Set([
  'type', 'enum', 'const', 'format', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'minLength', 'maxLength',
  'pattern', 'properties', 'required', 'additionalProperties', 'items', 'minItems', 'maxItems',
]);

/** Formats whose bounds the generator knows; any other format on a number is refused loudly. */
const INTEGER_FORMATS: Record<string, [number, number]> = {
  int64: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
  int32: [-(2 ** 31), 2 ** 31 - 1],
};

/** Characters that break patterns and parsers: controls, white space, quotes, non-BMP, lone surrogates. */
const AWKWARD_CHARACTERS = [
  '\u0000', '\u0001', '\t', '\n', '\r', '\u001f', '\u007f', ' ', '\u00a0', '\u2028', '\u200b', '\ufeff',
  '"', "'", '\\', '/', '%', '&', '=', '?', '#', '<', '>', '{', '}', '$', '`', ';', ',', '+', '.',
  'é', 'ß', 'Ω', '中', '🐕', '\ud83d', '\udc15', 'A', 'z', '0', '9', '-', '_', '~', '@',
];

/**
 * JSON values that break nothing by themselves (no number JSON cannot carry exactly), so that a
 * value put where it does not belong is the request's one mistake.
 */
const PLAIN_SCALAR = fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.boolean(), fc.constant(null));
const PLAIN_JSON = fc.oneof(PLAIN_SCALAR, fc.array(PLAIN_SCALAR, { maxLength: 3 }), fc.dictionary(fc.string({ maxLength: 5 }), PLAIN_SCALAR, { maxKeys: 3 }));

/** Length in code points, as JSON Schema counts it (not UTF-16 units). */
export function codePointLength(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/**
 * Turns a contract's JSON Schemas into fast-check arbitraries: values that satisfy a schema, and
 * values that break it in one named way. Follows local `$ref`s (with sibling keywords, as 3.1
 * allows). A keyword it does not understand throws, so a new construct in the contract is
 * noticed instead of silently left untested.
 */
export class SchemaArbitraries {
  constructor(private readonly doc: OpenApiDocument) {}

  /** The schema with `$ref`s followed and siblings of a `$ref` laid over its target. */
  resolve(raw: unknown): Schema {
    if (raw && typeof raw === 'object' && '$ref' in raw) {
      const { $ref, ...siblings } = raw as { $ref: string };
      return { ...this.resolve(resolveRef(this.doc, { $ref })), ...siblings } as Schema;
    }
    const schema = (raw ?? {}) as Schema;
    for (const keyword of Object.keys(schema)) {
      if (!KNOWN.has(keyword) && !ANNOTATIONS.has(keyword) && !keyword.startsWith('x-')) {
        throw new Error(`schema keyword "${keyword}" is not supported by the property-test generator: teach test/property/schema-arbitraries.ts`);
      }
    }
    return schema;
  }

  /** The single type of a schema (`integer`, `string`, …), inferred from its keywords when absent. */
  typeOf(schema: Schema): string {
    if (Array.isArray(schema.type)) {
      const [first, ...rest] = schema.type.filter((t) => t !== 'null');
      if (!first || rest.length > 0) throw new Error(`type ${JSON.stringify(schema.type)} is not supported by the property-test generator`);
      return first;
    }
    if (schema.type) return schema.type;
    if (schema.properties) return 'object';
    if (schema.items) return 'array';
    if (schema.enum) return typeof schema.enum[0];
    return 'string';
  }

  /** Inclusive integer bounds of a schema: its minimum/maximum, else its format's, else safe integers. */
  integerBounds(schema: Schema): [number, number] {
    const [formatMin, formatMax] = INTEGER_FORMATS[schema.format ?? ''] ?? [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER];
    const min = Math.max(schema.minimum ?? formatMin, schema.exclusiveMinimum !== undefined ? Math.floor(schema.exclusiveMinimum) + 1 : formatMin);
    const max = Math.min(schema.maximum ?? formatMax, schema.exclusiveMaximum !== undefined ? Math.ceil(schema.exclusiveMaximum) - 1 : formatMax);
    return [min, max];
  }

  /** Values the schema accepts. */
  valid(raw: unknown): fc.Arbitrary<unknown> {
    const schema = this.resolve(raw);
    if ('const' in schema) return fc.constant(schema.const);
    if (schema.enum) return fc.constantFrom(...schema.enum);
    switch (this.typeOf(schema)) {
      case 'integer': {
        const [min, max] = this.integerBounds(schema);
        return fc.oneof(
          { weight: 1, arbitrary: fc.constantFrom(min, max) },
          { weight: 6, arbitrary: fc.bigInt({ min: BigInt(min), max: BigInt(max) }).map(Number) },
        );
      }
      case 'number':
        return fc.double({ min: schema.minimum ?? -1e15, max: schema.maximum ?? 1e15, noNaN: true, noDefaultInfinity: true });
      case 'boolean':
        return fc.boolean();
      case 'string':
        return this.validString(schema);
      case 'array':
        return fc.array(this.valid(schema.items), { minLength: schema.minItems ?? 0, maxLength: Math.min(schema.maxItems ?? 5, 10) });
      case 'object':
        return this.validObject(schema);
      default:
        throw new Error(`type "${String(schema.type)}" is not supported by the property-test generator`);
    }
  }

  /** Strings within the length bounds that match the pattern: from the pattern itself, and with awkward characters. */
  private validString(schema: Schema): fc.Arbitrary<string> {
    const min = schema.minLength ?? 0;
    const max = schema.maxLength ?? 200;
    const fits = (s: string) => {
      const n = codePointLength(s);
      return n >= min && n <= max;
    };
    if (!schema.pattern) {
      return fc.oneof(
        fc.string({ unit: 'binary', minLength: min, maxLength: Math.min(max, min + 40) }),
        fc.string({ unit: fc.constantFrom(...AWKWARD_CHARACTERS), minLength: min, maxLength: Math.min(max, min + 20) }),
        fc.string({ unit: 'binary', minLength: max, maxLength: max }),
      ).filter(fits);
    }
    const re = new RegExp(schema.pattern, 'u');
    const fromPattern = fc.stringMatching(re, { maxLength: max }).filter(fits);
    // Full Unicode and awkward characters, where the pattern lets enough of them through.
    const wide = fc
      .oneof(
        fc.string({ unit: 'binary', minLength: min, maxLength: Math.min(max, min + 40) }),
        fc.string({ unit: fc.constantFrom(...AWKWARD_CHARACTERS), minLength: min, maxLength: Math.min(max, min + 20) }),
        fc.string({ unit: 'binary', minLength: max, maxLength: max }),
      )
      .filter((s) => fits(s) && re.test(s));
    const admitted = fc.sample(fc.string({ unit: 'binary', minLength: Math.max(min, 1), maxLength: Math.min(max, min + 20) }), { numRuns: 100, seed: 1 }).filter((s) => re.test(s)).length;
    return admitted >= 30 ? fc.oneof(fromPattern, wide) : fromPattern;
  }

  private validObject(schema: Schema): fc.Arbitrary<Record<string, unknown>> {
    const properties = Object.fromEntries(Object.entries(schema.properties ?? {}).map(([name, s]) => [name, this.valid(s)]));
    return fc.record(properties, { requiredKeys: schema.required ?? [] }) as fc.Arbitrary<Record<string, unknown>>;
  }

  /**
   * Values that break the schema, each in one named way, with where (`field`). Returns one
   * arbitrary per way the schema can be broken (none for a schema that accepts anything).
   */
  invalid(raw: unknown, field: string): BrokenFamily[] {
    const schema = this.resolve(raw);
    const broken = (kind: MutationKind, arb: fc.Arbitrary<unknown>): BrokenFamily => ({
      label: `${field} ${kind}`,
      arb: arb.map((value) => ({ value, kind, field })),
    });
    const type = 'const' in schema ? typeof schema.const : this.typeOf(schema);
    const out: BrokenFamily[] = [broken('wrong-type', wrongTypeValue(type))];
    if ('const' in schema) {
      out.push(broken('bad-const', fc.anything().filter((v) => JSON.stringify(v) !== JSON.stringify(schema.const))));
      return out;
    }
    if (schema.enum) {
      const allowed = new Set(schema.enum.map((v) => JSON.stringify(v)));
      const near = schema.enum.flatMap((v) => (typeof v === 'string' ? [v.toUpperCase(), v[0]!.toUpperCase() + v.slice(1), ` ${v}`, `${v} `, `${v}s`, v.slice(0, -1)] : []));
      out.push(broken('bad-enum', fc.oneof(fc.constantFrom(...near, ''), fc.string()).filter((v) => !allowed.has(JSON.stringify(v)))));
      return out;
    }
    switch (type) {
      case 'integer': {
        const [min, max] = this.integerBounds(schema);
        out.push(broken('not-an-integer', fc.double({ min: min - 1, max: max + 1, noNaN: true, noDefaultInfinity: true }).filter((n) => !Number.isInteger(n))));
        // Past the bounds, as bigints so that values beyond 2^53 are written exactly.
        out.push(broken('below-minimum', fc.bigInt({ min: BigInt(min) - 10n ** 20n, max: BigInt(min) - 1n })));
        out.push(broken('above-maximum', fc.oneof(fc.constant(BigInt(max) + 1n), fc.bigInt({ min: BigInt(max) + 1n, max: BigInt(max) + 10n ** 20n }))));
        break;
      }
      case 'string': {
        const min = schema.minLength ?? 0;
        const re = schema.pattern ? new RegExp(schema.pattern, 'u') : null;
        const valid = this.validString(schema);
        if (min > 0) out.push(broken('too-short', fc.string({ unit: 'binary', maxLength: min - 1 }).filter((s) => codePointLength(s) < min)));
        if (schema.maxLength !== undefined) {
          const over = schema.maxLength;
          out.push(
            broken(
              'too-long',
              fc
                .tuple(valid, fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 20 }), fc.nat(30))
                .map(([s, pad, extra]) => (s + pad.repeat(over + 1 + extra)).slice(0, over + 1 + extra))
                .filter((s) => codePointLength(s) > over),
            ),
          );
        }
        if (re) {
          // A valid string with an awkward character let in, or awkward characters only.
          const spoiled = fc.oneof(
            fc.tuple(valid, fc.constantFrom(...AWKWARD_CHARACTERS), fc.nat()).map(([s, c, at]) => {
              const chars = [...s];
              chars.splice(at % (chars.length + 1), 0, c);
              return chars.join('');
            }),
            fc.string({ unit: fc.constantFrom(...AWKWARD_CHARACTERS), minLength: Math.max(min, 1), maxLength: Math.max(min, 1) + 5 }),
          );
          out.push(
            broken(
              'bad-pattern',
              spoiled.filter((s) => !re.test(s) && codePointLength(s) >= min && codePointLength(s) <= (schema.maxLength ?? Infinity)),
            ),
          );
        }
        break;
      }
      case 'array': {
        if (schema.maxItems !== undefined) {
          out.push(broken('too-many-items', fc.array(this.valid(schema.items), { minLength: schema.maxItems + 1, maxLength: schema.maxItems + 3 })));
        }
        if ((schema.minItems ?? 0) > 0) out.push(broken('too-few-items', fc.array(this.valid(schema.items), { maxLength: schema.minItems! - 1 })));
        for (const item of this.invalid(schema.items, `${field}.0`)) {
          out.push({
            label: item.label,
            arb: fc.tuple(item.arb, fc.array(this.valid(schema.items), { maxLength: 3 })).map(([bad, rest]) => ({ ...bad, value: [bad.value, ...rest] })),
          });
        }
        break;
      }
      case 'object':
        out.push(...this.invalidObject(schema, field));
        break;
    }
    return out;
  }

  private invalidObject(schema: Schema, field: string): BrokenFamily[] {
    const out: BrokenFamily[] = [];
    const valid = this.validObject(schema);
    const properties = schema.properties ?? {};
    for (const name of schema.required ?? []) {
      out.push({
        label: `${field}.${name} missing-required`,
        arb: valid.map((value) => {
          const { [name]: _dropped, ...rest } = value;
          return { value: rest, kind: 'missing-required' as const, field: `${field}.${name}` };
        }),
      });
    }
    if (schema.additionalProperties === false) {
      const names = fc
        .oneof(fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'id', ' ', 'Name', 'a.b'), fc.string({ minLength: 1, maxLength: 12 }))
        // Not empty and without "/": the validator's error paths cannot name those (see the README).
        .filter((n) => !Object.hasOwn(properties, n) && !n.includes('/'));
      out.push({
        label: `${field}.<undeclared> extra-property`,
        arb: fc.tuple(valid, names, PLAIN_JSON).map(([value, name, extra]) => {
          // defineProperty, so that "__proto__" becomes an own key of the JSON text.
          const copy = { ...value };
          Object.defineProperty(copy, name, { value: extra, enumerable: true, configurable: true, writable: true });
          return { value: copy, kind: 'extra-property' as const, field: `${field}.${name}` };
        }),
      });
    }
    for (const [name, sub] of Object.entries(properties)) {
      for (const bad of this.invalid(sub, `${field}.${name}`)) {
        out.push({ label: bad.label, arb: fc.tuple(valid, bad.arb).map(([value, b]) => ({ ...b, value: { ...value, [name]: b.value } })) });
      }
    }
    return out;
  }
}

/** A JSON value of any type but `type` (integers count as numbers, and the other way round). */
function wrongTypeValue(type: string): fc.Arbitrary<unknown> {
  const candidates: [string, fc.Arbitrary<unknown>][] = [
    ['string', fc.oneof(fc.string({ maxLength: 10 }), fc.constantFrom('1', '0', 'true', 'null', ''))],
    ['integer', fc.integer()],
    ['boolean', fc.boolean()],
    ['null', fc.constant(null)],
    ['array', fc.array(PLAIN_SCALAR, { maxLength: 3 })],
    ['object', fc.dictionary(fc.string({ maxLength: 5 }), PLAIN_SCALAR, { maxKeys: 3 })],
  ];
  const numeric = type === 'integer' || type === 'number';
  return fc.oneof(...candidates.filter(([t]) => t !== type && !(numeric && t === 'integer')).map(([, arb]) => arb));
}

/** JSON text of a value, with bigints written as their exact digits (for numbers past 2^53). */
export function toJsonText(value: unknown): string {
  const marks: string[] = [];
  const text = JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v !== 'bigint') return v;
    marks.push(v.toString());
    return `\u0000bigint${marks.length - 1}\u0000`;
  });
  return text.replace(/"\\u0000bigint(\d+)\\u0000"/g, (_m, i: string) => marks[Number(i)]!);
}
