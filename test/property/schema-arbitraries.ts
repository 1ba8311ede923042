import fc from 'fast-check';
import { GENERATED_FORMATS, IGNORED_KEYWORDS, unsupportedKeywords, type GeneratedFormat } from '../../lint/schema-keywords.js';
import { resolveRef, type OpenApiDocument } from '../../src/contract/load-spec.js';
import { brokenFormatValues, FLOAT_MAX, formatValues, INTEGER_FORMATS } from './schema-formats.js';
import { SchemaMatcher } from './schema-matcher.js';
import { canonicalJson, mergeSchemas, typeList, UnsatisfiableError } from './schema-merge.js';
import type { JsonType, Schema, SchemaLike } from './schema.js';

export type { JsonType, Schema, SchemaLike };

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
  | 'not-a-multiple'
  | 'too-short'
  | 'too-long'
  | 'bad-pattern'
  | 'bad-format'
  | 'bad-enum'
  | 'bad-const'
  | 'missing-required'
  | 'extra-property'
  | 'too-many-properties'
  | 'too-few-properties'
  | 'too-many-items'
  | 'too-few-items'
  | 'duplicate-items'
  | 'no-branch'
  | 'several-branches'
  | 'matches-not'
  | 'repeated'
  | 'not-json'
  | 'no-body'
  | 'wrong-content-type'
  | 'bad-key';

const IGNORED = new Set(IGNORED_KEYWORDS);

/** The type a keyword speaks of, for a schema without `type`: values of other types pass it. */
const IMPLIED_TYPE: Record<string, JsonType> = {
  multipleOf: 'number',
  minimum: 'number',
  maximum: 'number',
  exclusiveMinimum: 'number',
  exclusiveMaximum: 'number',
  minLength: 'string',
  maxLength: 'string',
  pattern: 'string',
  items: 'array',
  prefixItems: 'array',
  minItems: 'array',
  maxItems: 'array',
  uniqueItems: 'array',
  properties: 'object',
  required: 'object',
  additionalProperties: 'object',
  minProperties: 'object',
  maxProperties: 'object',
};

/** Values tried before a filter is trusted to find some: a filter that finds none in these is a schema no value fits. */
const TRIES = 60;

/** Characters that break patterns and parsers: controls, white space, quotes, non-BMP, lone surrogates. */
const AWKWARD_CHARACTERS = [
  '\u0000',
  '\u0001',
  '\t',
  '\n',
  '\r',
  '\u001f',
  '\u007f',
  ' ',
  '\u00a0',
  '\u2028',
  '\u200b',
  '\ufeff',
  '"',
  "'",
  '\\',
  '/',
  '%',
  '&',
  '=',
  '?',
  '#',
  '<',
  '>',
  '{',
  '}',
  '$',
  '`',
  ';',
  ',',
  '+',
  '.',
  'é',
  'ß',
  'Ω',
  '中',
  '🐕',
  '\ud83d',
  '\udc15',
  'A',
  'z',
  '0',
  '9',
  '-',
  '_',
  '~',
  '@',
];

/**
 * JSON values that break nothing by themselves (no number JSON cannot carry exactly), so that a
 * value put where it does not belong is the request's one mistake.
 */
const PLAIN_SCALAR = fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.boolean(), fc.constant(null));
const PLAIN_JSON = fc.oneof(
  PLAIN_SCALAR,
  fc.array(PLAIN_SCALAR, { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), PLAIN_SCALAR, { maxKeys: 3 }),
);

/** Length in code points, as JSON Schema counts it (not UTF-16 units). */
function codePointLength(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/**
 * Turns a contract's JSON Schemas into fast-check arbitraries: values that satisfy a schema, and
 * values that break it in one named way. Follows local `$ref`s (with sibling keywords, as 3.1
 * allows). What it handles is listed once, in lint/schema-keywords.js, which `npm run lint`
 * holds the contract's requests to; anything else throws here, so that a construct the lint rule
 * let through is noticed instead of silently left untested.
 *
 * Most values are built to fit by construction. Where that is not practical (exactly one `oneOf`
 * branch, not the `not`, two patterns from an `allOf`) values are filtered with ajv
 * (schema-matcher.ts), after a sample shows the filter finds some.
 */
export class SchemaArbitraries {
  private readonly matcher: SchemaMatcher;
  /** $refs being followed by {@link resolve} and being built by {@link valid}/{@link invalid}: a repeat is a schema inside itself. */
  private readonly resolving: string[] = [];
  private readonly building: string[] = [];
  private readonly validCache = new WeakMap<object, fc.Arbitrary<unknown>>();

  constructor(private readonly doc: OpenApiDocument) {
    this.matcher = new SchemaMatcher(doc);
  }

  /**
   * The schema with `$ref`s followed (siblings of a `$ref` held together with its target, as
   * 3.1 says) and `allOf` written out as one schema (schema-merge.ts).
   */
  resolve(raw: unknown): Schema {
    if (raw === undefined || raw === true) return {};
    if (raw === false) return { not: {} };
    if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new Error(`${JSON.stringify(raw)} is not a schema`);
    const problems = unsupportedKeywords(raw);
    if (problems.length > 0) throw new Error(`${problems.map((p) => p.message).join(' ')} (npm run lint names where.)`);
    let schema = raw as Schema;
    if (typeof schema.$ref === 'string') {
      const { $ref, ...siblings } = schema;
      const target = this.inside(this.resolving, $ref, () => this.resolve(resolveRef(this.doc, { $ref })));
      const annotationsOnly = Object.keys(siblings).every((k) => IGNORED.has(k) || k.startsWith('x-'));
      schema = annotationsOnly ? { ...target, ...siblings } : mergeSchemas([target, this.resolve(siblings)]);
    }
    if (schema.allOf) {
      const { allOf, ...rest } = schema;
      schema = mergeSchemas([rest, ...allOf.map((branch) => this.resolve(branch))]);
    }
    return schema;
  }

  /** The one type of a parameter's schema (`integer`, `string`, …), besides null. */
  typeOf(schema: Schema): string {
    const [first, ...rest] = (this.constrainedTypes(schema) ?? this.typesOf(schema)).filter((t) => t !== 'null');
    if (!first || rest.length > 0)
      throw new Error(`type ${JSON.stringify(schema.type)} is not supported for a parameter by the property-test generator`);
    return first;
  }

  /** Inclusive integer bounds of a schema: its minimum/maximum, else its format's, else safe integers. */
  integerBounds(schema: Schema): [number, number] {
    const [formatMin, formatMax] = INTEGER_FORMATS[schema.format as GeneratedFormat] ?? [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER];
    const min = Math.max(
      formatMin,
      schema.minimum !== undefined ? Math.ceil(schema.minimum) : -Infinity,
      schema.exclusiveMinimum !== undefined ? Math.floor(schema.exclusiveMinimum) + 1 : -Infinity,
    );
    const max = Math.min(
      formatMax,
      schema.maximum !== undefined ? Math.floor(schema.maximum) : Infinity,
      schema.exclusiveMaximum !== undefined ? Math.ceil(schema.exclusiveMaximum) - 1 : Infinity,
    );
    return [min, max];
  }

  /** Values the schema accepts. */
  valid(raw: unknown): fc.Arbitrary<unknown> {
    const key = raw && typeof raw === 'object' ? raw : undefined;
    const cached = key && this.validCache.get(key);
    if (cached) return cached;
    const arb = this.whileBuilding(raw, () => this.validOf(this.resolve(raw)));
    if (key) this.validCache.set(key, arb);
    return arb;
  }

  /**
   * Values that break the schema, each in one named way, with where (`field`). Returns one
   * arbitrary per way the schema can be broken (none for a schema that accepts anything).
   */
  invalid(raw: unknown, field: string): BrokenFamily[] {
    return this.whileBuilding(raw, () => {
      const schema = this.resolve(raw);
      const types = this.constrainedTypes(schema);
      const wrong = types && wrongTypeValue(types);
      return [...(wrong ? [family(field, 'wrong-type', wrong)] : []), ...this.brokenKeywords(schema, field)];
    });
  }

  private validOf(schema: Schema): fc.Arbitrary<unknown> {
    if (schema.allOf) {
      // What mergeSchemas could not write as one keyword (two patterns, two oneOfs).
      const leftovers = { allOf: schema.allOf };
      return this.satisfying(this.validOf(omit(schema, 'allOf')), (v) => this.matcher.accepts(leftovers, v), 'allOf');
    }
    if (schema.not !== undefined) {
      const not = schema.not;
      return this.satisfying(this.validOf(omit(schema, 'not')), (v) => this.matcher.refuses(not, v), 'not');
    }
    if (schema.oneOf) return this.validOneOf(omit(schema, 'oneOf'), schema.oneOf);
    if (schema.anyOf) {
      const rest = omit(schema, 'anyOf');
      const branches = schema.anyOf.flatMap((branch) => this.ifSatisfiable(() => this.validOf(mergeSchemas([rest, this.resolve(branch)]))));
      if (branches.length === 0) throw new UnsatisfiableError(`no value satisfies a branch of anyOf ${canonicalJson(schema.anyOf)}`);
      return fc.oneof(...branches);
    }
    if ('const' in schema) {
      if (!this.matcher.accepts(schema, schema.const))
        throw new UnsatisfiableError(`const ${canonicalJson(schema.const)} does not satisfy its own schema`);
      return fc.constant(schema.const);
    }
    if (schema.enum) {
      const values = schema.enum.filter((v) => this.matcher.accepts(schema, v));
      if (values.length === 0) throw new UnsatisfiableError(`no value of enum ${canonicalJson(schema.enum)} satisfies its own schema`);
      return fc.constantFrom(...values);
    }
    return fc.oneof(...this.typesOf(schema).map((type) => this.validOfType(schema, type)));
  }

  /** Values of one branch merged with the rest of the schema that the other branches refuse. */
  private validOneOf(rest: Schema, branches: SchemaLike[]): fc.Arbitrary<unknown> {
    const arbs = branches.flatMap((branch, i) =>
      this.ifSatisfiable(() => {
        const others = branches.filter((_, j) => j !== i);
        return this.satisfying(
          this.validOf(mergeSchemas([rest, this.resolve(branch)])),
          (v) => others.every((o) => this.matcher.refuses(o, v)),
          `oneOf branch ${i} alone`,
        );
      }),
    );
    if (arbs.length === 0) throw new UnsatisfiableError(`no value satisfies exactly one branch of oneOf ${canonicalJson(branches)}`);
    return fc.oneof(...arbs);
  }

  private validOfType(schema: Schema, type: JsonType | 'any'): fc.Arbitrary<unknown> {
    switch (type) {
      case 'null':
        return fc.constant(null);
      case 'boolean':
        return fc.boolean();
      case 'integer':
        return this.validInteger(schema);
      case 'number':
        return isIntegerFormat(schema) ? this.validInteger(schema) : this.validNumber(schema);
      case 'string':
        return this.validStringOf(schema);
      case 'array':
        return this.validArray(schema);
      case 'object':
        return this.validObject(schema);
      case 'any':
        return PLAIN_JSON;
    }
  }

  private validInteger(schema: Schema): fc.Arbitrary<number> {
    const [min, max] = this.integerBounds(schema);
    if (min > max) throw new UnsatisfiableError(`no integer lies between ${min} and ${max}`);
    const m = schema.multipleOf;
    if (m === undefined) {
      return fc.oneof(
        { weight: 1, arbitrary: fc.constantFrom(min, max) },
        { weight: 6, arbitrary: fc.bigInt({ min: BigInt(min), max: BigInt(max) }).map(Number) },
      );
    }
    const step = integerStep(m);
    const [kMin, kMax] = [ceilDiv(BigInt(min), step), floorDiv(BigInt(max), step)];
    if (kMin > kMax) throw new UnsatisfiableError(`no multiple of ${m} lies between ${min} and ${max}`);
    const multiples = fc
      .oneof({ weight: 1, arbitrary: fc.constantFrom(kMin, kMax) }, { weight: 6, arbitrary: fc.bigInt({ min: kMin, max: kMax }) })
      .map((k) => Number(k * step));
    // Ajv divides in floating point: 3 is no multiple of 0.3 to it (3 / 0.3 = 10.000000000000002).
    return this.satisfying(multiples, (v) => Number.isInteger(v / m), `multipleOf ${m}`);
  }

  /** The bounds of a number: the tighter of each side's keywords (and format), and whether that side is exclusive. */
  private numberBounds(schema: Schema): { lo: number; hi: number; loOpen: boolean; hiOpen: boolean } {
    const float = schema.format === 'float' ? FLOAT_MAX : Infinity;
    let [lo, loOpen] = [schema.minimum ?? -float, false];
    if (schema.exclusiveMinimum !== undefined && schema.exclusiveMinimum >= lo) [lo, loOpen] = [schema.exclusiveMinimum, true];
    let [hi, hiOpen] = [schema.maximum ?? float, false];
    if (schema.exclusiveMaximum !== undefined && schema.exclusiveMaximum <= hi) [hi, hiOpen] = [schema.exclusiveMaximum, true];
    // Values far from zero add nothing but rounding: keep unbounded sides within 1e15 of the other.
    if (!Number.isFinite(lo) || lo === -FLOAT_MAX) lo = Math.min(-1e15, (Number.isFinite(hi) ? hi : 0) - 1e15);
    if (!Number.isFinite(hi) || hi === FLOAT_MAX) hi = Math.max(1e15, lo + 1e15);
    return { lo, hi, loOpen, hiOpen };
  }

  private validNumber(schema: Schema): fc.Arbitrary<number> {
    const { lo, hi, loOpen, hiOpen } = this.numberBounds(schema);
    const inside = (v: number) => (loOpen ? v > lo : v >= lo) && (hiOpen ? v < hi : v <= hi);
    const m = schema.multipleOf;
    if (m !== undefined) {
      const [kMin, kMax] = [Math.ceil(lo / m), Math.floor(hi / m)];
      if (kMin > kMax) throw new UnsatisfiableError(`no multiple of ${m} lies between ${lo} and ${hi}`);
      const multiples = fc.bigInt({ min: BigInt(kMin), max: BigInt(kMax) }).map((k) => Number(k) * m);
      return this.satisfying(multiples, (v) => inside(v) && Number.isInteger(v / m), `multipleOf ${m}`);
    }
    const closedEnds = [...(loOpen ? [] : [lo]), ...(hiOpen ? [] : [hi])];
    const doubles = fc.double({ min: lo, max: hi, minExcluded: loOpen, maxExcluded: hiOpen, noNaN: true, noDefaultInfinity: true });
    const values =
      closedEnds.length > 0
        ? fc.oneof({ weight: 1, arbitrary: fc.constantFrom(...closedEnds) }, { weight: 6, arbitrary: doubles })
        : doubles;
    // The server's validator (express-openapi-validator) holds `float` to binary32: no subnormals.
    return schema.format === 'float' ? values.filter((v) => v === 0 || Math.abs(v) >= 2 ** -126) : values;
  }

  /** Strings of the schema's format, within its length and pattern; or, without a format, {@link validString}. */
  private validStringOf(schema: Schema): fc.Arbitrary<string> {
    const formatted = schema.format === undefined ? null : formatValues(schema.format);
    if (!formatted) return this.validString(schema);
    const re = schema.pattern === undefined ? null : new RegExp(schema.pattern, 'u');
    const [min, max] = [schema.minLength ?? 0, schema.maxLength ?? Infinity];
    return this.satisfying(
      formatted,
      (s) => codePointLength(s) >= min && codePointLength(s) <= max && (!re || re.test(s)),
      `format ${schema.format} with its length and pattern`,
    );
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
      return fc
        .oneof(
          fc.string({ unit: 'binary', minLength: min, maxLength: Math.min(max, min + 40) }),
          fc.string({ unit: fc.constantFrom(...AWKWARD_CHARACTERS), minLength: min, maxLength: Math.min(max, min + 20) }),
          fc.string({ unit: 'binary', minLength: max, maxLength: max }),
        )
        .filter(fits);
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
    const admitted = fc
      .sample(fc.string({ unit: 'binary', minLength: Math.max(min, 1), maxLength: Math.min(max, min + 20) }), { numRuns: 100, seed: 1 })
      .filter((s) => re.test(s)).length;
    return admitted >= 30 ? fc.oneof(fromPattern, wide) : fromPattern;
  }

  /** The arbitraries an array is made of: its prefixItems', its items' (null for `items: false`), and its length bounds. */
  private arrayParts(schema: Schema) {
    const prefix = (schema.prefixItems ?? []).map((s) => this.valid(s));
    const item = schema.items === false ? null : this.valid(schema.items);
    const lo = schema.minItems ?? 0;
    const longest = Math.max(lo, prefix.length);
    const hi = Math.min(schema.maxItems ?? longest + 5, longest + 10, item === null ? prefix.length : Infinity);
    return { prefix, item, lo, hi };
  }

  private validArray(schema: Schema): fc.Arbitrary<unknown[]> {
    const { prefix, item, lo, hi } = this.arrayParts(schema);
    return this.arrayOf(schema, prefix, item, lo, hi);
  }

  /**
   * Arrays of `lo` to `hi` items, the first ones from `prefix`, the rest from `item`, all
   * different when the schema says uniqueItems (as ajv compares: deep, key order aside).
   */
  private arrayOf(
    schema: Schema,
    prefix: fc.Arbitrary<unknown>[],
    item: fc.Arbitrary<unknown> | null,
    lo: number,
    hi: number,
  ): fc.Arbitrary<unknown[]> {
    const p = prefix.length;
    const top = item === null ? Math.min(hi, p) : hi;
    if (lo > top) throw new UnsatisfiableError(`no array of ${lo} to ${top} items`);
    const unique = schema.uniqueItems === true;
    const [tailMin, tailMax] = [Math.max(0, lo - p), Math.max(0, top - p)];
    let tail: fc.Arbitrary<unknown[]> = fc.constant([]);
    if (item !== null && tailMax > 0) {
      tail = unique
        ? // More draws than items, duplicates dropped: fc.uniqueArray never returns when the items cannot be that many.
          fc
            .tuple(fc.array(item, { minLength: tailMin, maxLength: 2 * tailMax + 2 }), fc.nat())
            .map(([draws, n]) => distinctValues(draws).slice(0, tailMin + (n % (tailMax - tailMin + 1))))
        : fc.array(item, { minLength: tailMin, maxLength: tailMax });
    }
    const headMax = Math.min(top, p);
    const arrays = fc
      .tuple(fc.tuple(...prefix), tail, fc.nat())
      .map(([head, rest, n]) => (rest.length > 0 || lo > headMax ? [...head, ...rest] : head.slice(0, headMax - (n % (headMax - lo + 1)))));
    return unique ? this.satisfying(arrays, (a) => a.length >= lo && distinctValues(a).length === a.length, 'uniqueItems') : arrays;
  }

  /** The arbitraries an object is made of: one per property, and one for additional properties (null when there may be none). */
  private objectParts(schema: Schema) {
    const properties = schema.properties ?? {};
    const required = schema.required ?? [];
    const extraSchema = schema.additionalProperties;
    const additional = extraSchema === false ? null : isSchemaObject(extraSchema) ? this.valid(extraSchema) : PLAIN_JSON;
    const values: Record<string, fc.Arbitrary<unknown>> = {};
    for (const [name, sub] of Object.entries(properties)) {
      if (sub === false) {
        if (required.includes(name)) throw new UnsatisfiableError(`property ${name} is required and its schema is false`);
        continue;
      }
      values[name] = this.valid(sub);
    }
    for (const name of required.filter((n) => !Object.hasOwn(properties, n))) {
      if (!additional) throw new UnsatisfiableError(`property ${name} is required but not declared, and additionalProperties is false`);
      values[name] = additional;
    }
    const names = fc.stringMatching(/^[a-z][a-z0-9_]{0,9}$/).filter((n) => !Object.hasOwn(properties, n) && !required.includes(n));
    return { values, required, additional, names, extrasGenerated: isSchemaObject(extraSchema) };
  }

  private validObject(schema: Schema): fc.Arbitrary<Record<string, unknown>> {
    const { values, required, additional, names, extrasGenerated } = this.objectParts(schema);
    const record = fc.record(values, { requiredKeys: required }) as fc.Arbitrary<Record<string, unknown>>;
    const [min, max] = [schema.minProperties ?? 0, schema.maxProperties ?? Infinity];
    if (min === 0 && max === Infinity && !extrasGenerated) return record;
    // Additional properties: some when the schema says what they are, else only to reach minProperties.
    const extras = additional
      ? fc.uniqueArray(fc.tuple(names, additional), { selector: ([n]) => n, maxLength: Math.max(min, extrasGenerated ? 3 : 0) })
      : fc.constant([]);
    const objects = fc
      .tuple(record, fc.record(values) as fc.Arbitrary<Record<string, unknown>>, extras, fc.nat())
      .map(([chosen, all, extra, n]) => {
        const value = { ...chosen };
        const wanted = extrasGenerated ? n % (extra.length + 1) : 0;
        extra.slice(0, wanted).forEach(([name, v]) => (value[name] = v));
        for (const key of Object.keys(value).reverse()) if (Object.keys(value).length > max && !required.includes(key)) delete value[key];
        for (const [name, v] of [...Object.entries(all), ...extra])
          if (Object.keys(value).length < min && !Object.hasOwn(value, name)) value[name] = v;
        return value;
      });
    return this.satisfying(objects, (o) => Object.keys(o).length >= min && Object.keys(o).length <= max, 'minProperties and maxProperties');
  }

  /** The ways of breaking a schema other than its type. */
  private brokenKeywords(schema: Schema, field: string): BrokenFamily[] {
    const broken = (kind: MutationKind, arb: fc.Arbitrary<unknown>) => family(field, kind, arb);
    // An allOf left over after merging is applied to valid values only: its keywords are not broken one by one.
    if (schema.allOf) return this.brokenKeywords(omit(schema, 'allOf'), field);
    if (schema.not !== undefined) {
      const rest = omit(schema, 'not');
      const matching = this.ifSatisfiable(() => broken('matches-not', this.validOf(mergeSchemas([rest, this.resolve(schema.not)]))));
      return [...matching, ...this.brokenKeywords(rest, field)];
    }
    if (schema.oneOf || schema.anyOf) return this.brokenBranches(schema, field);
    if ('const' in schema) {
      const target = canonicalJson(schema.const);
      return [
        broken(
          'bad-const',
          fc.oneof(nearValues([schema.const]), PLAIN_JSON).filter((v) => canonicalJson(v) !== target),
        ),
      ];
    }
    if (schema.enum) {
      const allowed = new Set(schema.enum.map(canonicalJson));
      return [
        broken(
          'bad-enum',
          fc.oneof(nearValues(schema.enum), fc.string()).filter((v) => !allowed.has(canonicalJson(v))),
        ),
      ];
    }
    const types = this.typesOf(schema);
    return types.flatMap((type) => {
      switch (type) {
        case 'integer':
          return this.brokenInteger(schema, field, types.includes('number'));
        case 'number':
          return isIntegerFormat(schema) ? this.brokenInteger(schema, field, false) : this.brokenNumber(schema, field);
        case 'string':
          return this.brokenString(schema, field);
        case 'array':
          return this.brokenArray(schema, field);
        case 'object':
          return this.brokenObject(schema, field);
        default:
          return [];
      }
    });
  }

  /**
   * `oneOf`: a value two branches accept (built from both merged); `oneOf` and `anyOf`: a value
   * no branch accepts (a value that breaks one branch, kept when the others refuse it too); and
   * the ways of breaking the rest of the schema.
   */
  private brokenBranches(schema: Schema, field: string): BrokenFamily[] {
    const keyword = schema.oneOf ? 'oneOf' : 'anyOf';
    const branches = schema[keyword]!;
    const rest = omit(schema, keyword);
    const out: BrokenFamily[] = [];
    if (keyword === 'oneOf') {
      const both = branches.flatMap((a, i) =>
        branches
          .slice(i + 1)
          .flatMap((b) => this.ifSatisfiable(() => this.validOf(mergeSchemas([rest, this.resolve(a), this.resolve(b)])))),
      );
      if (both.length > 0) out.push(family(field, 'several-branches', fc.oneof(...both)));
    }
    const near = branches.flatMap((branch) =>
      this.ifSatisfiable(() => this.brokenKeywords(mergeSchemas([rest, this.resolve(branch)]), field)).flat(),
    );
    const fitsNone = (v: unknown) => branches.every((b) => this.matcher.refuses(b, v)) && this.matcher.accepts(rest, v);
    if (near.length > 0) {
      const values = fc.oneof(...near.map((f) => f.arb.map((b) => b.value)));
      if (this.feasible(values, fitsNone)) out.push(family(field, 'no-branch', values.filter(fitsNone)));
    }
    return [...out, ...this.brokenKeywords(rest, field)];
  }

  private brokenInteger(schema: Schema, field: string, numbersAllowed: boolean): BrokenFamily[] {
    const out: BrokenFamily[] = [];
    const broken = (kind: MutationKind, arb: fc.Arbitrary<unknown>) => out.push(family(field, kind, arb));
    const [min, max] = this.integerBounds(schema);
    if (!numbersAllowed)
      broken(
        'not-an-integer',
        fc.double({ min: min - 1, max: max + 1, noNaN: true, noDefaultInfinity: true }).filter((n) => !Number.isInteger(n)),
      );
    // Past the bounds, as bigints so that values beyond 2^53 are written exactly. int64's bounds
    // are not JSON's: validators read 2^53 + 1 as 2^53, which int64 allows.
    const [formatMin, formatMax] = INTEGER_FORMATS[schema.format as GeneratedFormat] ?? [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER];
    if (formatMin > Number.MIN_SAFE_INTEGER || schema.minimum !== undefined || schema.exclusiveMinimum !== undefined) {
      broken('below-minimum', fc.bigInt({ min: BigInt(min) - 10n ** 20n, max: BigInt(min) - 1n }));
    }
    if (formatMax < Number.MAX_SAFE_INTEGER || schema.maximum !== undefined || schema.exclusiveMaximum !== undefined) {
      broken('above-maximum', fc.oneof(fc.constant(BigInt(max) + 1n), fc.bigInt({ min: BigInt(max) + 1n, max: BigInt(max) + 10n ** 20n })));
    }
    const m = schema.multipleOf;
    const step = m === undefined ? 1n : integerStep(m);
    if (m !== undefined && step > 1n && min <= max) {
      const offMultiples = fc
        .tuple(fc.bigInt({ min: BigInt(min), max: BigInt(max) }), fc.bigInt({ min: 1n, max: step - 1n }))
        .map(([v, r]) => Number(v - (((v % step) + step) % step) + r));
      const off = (v: number) => v >= min && v <= max && !Number.isInteger(v / m);
      out.push(...this.ifSatisfiable(() => family(field, 'not-a-multiple', this.satisfying(offMultiples, off, 'not-a-multiple'))));
    }
    return out;
  }

  private brokenNumber(schema: Schema, field: string): BrokenFamily[] {
    const out: BrokenFamily[] = [];
    const { lo, hi, loOpen, hiOpen } = this.numberBounds(schema);
    const reach = (bound: number) => Math.max(1e6, Math.abs(bound));
    if (schema.minimum !== undefined || schema.exclusiveMinimum !== undefined) {
      out.push(
        family(
          field,
          'below-minimum',
          fc.double({ min: lo - reach(lo), max: lo, maxExcluded: !loOpen, noNaN: true, noDefaultInfinity: true }),
        ),
      );
    }
    if (schema.maximum !== undefined || schema.exclusiveMaximum !== undefined) {
      out.push(
        family(
          field,
          'above-maximum',
          fc.double({ min: hi, max: hi + reach(hi), minExcluded: !hiOpen, noNaN: true, noDefaultInfinity: true }),
        ),
      );
    }
    const m = schema.multipleOf;
    if (m !== undefined) {
      const inRange = fc.double({ min: lo, max: hi, minExcluded: loOpen, maxExcluded: hiOpen, noNaN: true, noDefaultInfinity: true });
      out.push(
        ...this.ifSatisfiable(() =>
          family(
            field,
            'not-a-multiple',
            this.satisfying(inRange, (v) => !Number.isInteger(v / m), 'not-a-multiple'),
          ),
        ),
      );
    }
    return out;
  }

  private brokenString(schema: Schema, field: string): BrokenFamily[] {
    const out: BrokenFamily[] = [];
    const broken = (kind: MutationKind, arb: fc.Arbitrary<unknown>) => out.push(family(field, kind, arb));
    const min = schema.minLength ?? 0;
    const maxLength = schema.maxLength ?? Infinity;
    const re = schema.pattern ? new RegExp(schema.pattern, 'u') : null;
    const valid = this.validStringOf(schema);
    if (min > 0)
      broken(
        'too-short',
        fc.string({ unit: 'binary', maxLength: min - 1 }).filter((s) => codePointLength(s) < min),
      );
    if (schema.maxLength !== undefined) {
      const over = schema.maxLength;
      broken(
        'too-long',
        fc
          .tuple(valid, fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 20 }), fc.nat(30))
          .map(([s, pad, extra]) => (s + pad.repeat(over + 1 + extra)).slice(0, over + 1 + extra))
          .filter((s) => codePointLength(s) > over),
      );
    }
    const fits = (s: string) => codePointLength(s) >= min && codePointLength(s) <= maxLength;
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
      broken(
        'bad-pattern',
        spoiled.filter((s) => !re.test(s) && fits(s)),
      );
    }
    const offFormat = schema.format === undefined ? null : brokenFormatValues(schema.format);
    if (offFormat) {
      const only = (s: string) => fits(s) && (!re || re.test(s));
      out.push(
        ...this.ifSatisfiable(() => family(field, 'bad-format', this.satisfying(offFormat, only, `format ${schema.format} broken alone`))),
      );
    }
    return out;
  }

  private brokenArray(schema: Schema, field: string): BrokenFamily[] {
    const out: BrokenFamily[] = [];
    const { prefix, item, lo, hi } = this.arrayParts(schema);
    const max = schema.maxItems;
    const attempt = (kind: MutationKind, build: () => fc.Arbitrary<unknown>) =>
      out.push(...this.ifSatisfiable(() => family(field, kind, build())));
    if (max !== undefined) attempt('too-many-items', () => this.arrayOf(schema, prefix, item ?? PLAIN_SCALAR, max + 1, max + 3));
    // items: false: an item past the prefix.
    if (item === null && (max === undefined || max > prefix.length)) {
      attempt('too-many-items', () => this.arrayOf(schema, prefix, PLAIN_SCALAR, Math.max(lo, prefix.length + 1), prefix.length + 2));
    }
    if (lo > 0) attempt('too-few-items', () => this.arrayOf(schema, prefix, item, 0, lo - 1));
    if (schema.uniqueItems === true) {
      const others = omit(schema, 'uniqueItems');
      attempt('duplicate-items', () => {
        const base = this.arrayOf(schema, prefix, item, Math.max(1, lo - 1), Math.max(1, Math.min(hi, (max ?? Infinity) - 1)));
        const repeated = fc.tuple(base, fc.nat()).map(([a, i]) => [...a, a[i % a.length]]);
        return this.satisfying(repeated, (a) => this.matcher.accepts(others, a), 'uniqueItems broken alone');
      });
    }
    // Each position broken in turn: every prefixItems entry, then the first of items.
    const positions: [number, SchemaLike | undefined][] = (schema.prefixItems ?? []).map((s, i) => [i, s]);
    if (item !== null && schema.items !== undefined) positions.push([prefix.length, schema.items]);
    for (const [at, sub] of positions) {
      if (max !== undefined && at >= max) continue;
      const bases = this.ifSatisfiable(() => this.arrayOf(schema, prefix, item, Math.max(lo, at + 1), Math.max(lo, at + 1, hi)));
      if (bases.length === 0) continue;
      for (const bad of this.invalid(sub, `${field}.${at}`)) {
        out.push({
          label: bad.label,
          arb: fc.tuple(bad.arb, bases[0]!).map(([b, a]) => ({ ...b, value: [...a.slice(0, at), b.value, ...a.slice(at + 1)] })),
        });
      }
    }
    return out;
  }

  private brokenObject(schema: Schema, field: string): BrokenFamily[] {
    const out: BrokenFamily[] = [];
    const valid = this.validObject(schema);
    const { values, required, additional, names } = this.objectParts(schema);
    const properties = schema.properties ?? {};
    for (const name of required) {
      out.push({
        label: `${field}.${name} missing-required`,
        arb: valid.map((value) => {
          const { [name]: _dropped, ...rest } = value;
          return { value: rest, kind: 'missing-required' as const, field: `${field}.${name}` };
        }),
      });
    }
    if (schema.additionalProperties === false) {
      const undeclared = fc
        .oneof(
          fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'id', ' ', 'Name', 'a.b'),
          fc.string({ minLength: 1, maxLength: 12 }),
        )
        // Not empty and without "/": the validator's error paths cannot name those (see the README).
        .filter((n) => !Object.hasOwn(properties, n) && !n.includes('/'));
      out.push({
        label: `${field}.<undeclared> extra-property`,
        arb: fc.tuple(valid, undeclared, PLAIN_JSON).map(([value, name, extra]) => ({
          value: withKey(value, name, extra),
          kind: 'extra-property' as const,
          field: `${field}.${name}`,
        })),
      });
    }
    if (isSchemaObject(schema.additionalProperties)) {
      // An additional property whose value breaks additionalProperties: `*` in the label, its name in the field.
      for (const bad of this.invalid(schema.additionalProperties, `${field}.*`)) {
        out.push({
          label: bad.label,
          arb: fc.tuple(valid, names, bad.arb).map(([value, name, b]) => ({
            ...b,
            field: `${field}.${name}${b.field.slice(field.length + 2)}`,
            value: withKey(value, name, b.value),
          })),
        });
      }
    }
    const count = (o: object) => Object.keys(o).length;
    const max = schema.maxProperties;
    if (max !== undefined) {
      const extras = additional
        ? fc.uniqueArray(fc.tuple(names, additional), { selector: ([n]) => n, minLength: max + 1, maxLength: max + 2 })
        : fc.constant([]);
      const crowded = fc.tuple(valid, fc.record(values) as fc.Arbitrary<Record<string, unknown>>, extras).map(([value, all, extra]) => {
        const more = { ...value };
        for (const [name, v] of [...Object.entries(all), ...extra]) if (count(more) <= max && !Object.hasOwn(more, name)) more[name] = v;
        return more;
      });
      out.push(
        ...this.ifSatisfiable(() =>
          family(
            field,
            'too-many-properties',
            this.satisfying(crowded, (o) => count(o) > max, 'too-many-properties'),
          ),
        ),
      );
    }
    const min = schema.minProperties ?? 0;
    if (min > required.length) {
      const sparse = valid.map((value) => {
        const fewer = { ...value };
        for (const key of Object.keys(fewer)) if (count(fewer) >= min && !required.includes(key)) delete fewer[key];
        return fewer;
      });
      out.push(family(field, 'too-few-properties', sparse));
    }
    for (const [name, sub] of Object.entries(properties)) {
      for (const bad of this.invalid(sub, `${field}.${name}`)) {
        out.push({ label: bad.label, arb: fc.tuple(valid, bad.arb).map(([value, b]) => ({ ...b, value: { ...value, [name]: b.value } })) });
      }
    }
    return out;
  }

  /** The types to generate values of: the `type` keyword's, else those the schema's keywords speak of, else any. */
  private typesOf(schema: Schema): (JsonType | 'any')[] {
    const declared = typeList(schema.type);
    if (declared) return declared;
    const implied = new Set<JsonType>();
    for (const keyword of Object.keys(schema)) if (IMPLIED_TYPE[keyword]) implied.add(IMPLIED_TYPE[keyword]);
    const formatType = GENERATED_FORMATS[schema.format as GeneratedFormat];
    if (formatType) implied.add(formatType);
    if (implied.has('integer')) implied.delete('number');
    return implied.size > 0 ? [...implied] : ['any'];
  }

  /** The types a schema allows, when it restricts them (`type`, `const`, `enum`, or branches that all do); else null. */
  private constrainedTypes(schema: Schema): JsonType[] | null {
    const declared = typeList(schema.type);
    if (declared) return declared;
    if ('const' in schema) return [jsonType(schema.const)];
    if (schema.enum) return [...new Set(schema.enum.map(jsonType))];
    for (const branches of [schema.oneOf, schema.anyOf]) {
      if (!branches) continue;
      const each = branches.map((b) => this.constrainedTypes(this.resolve(b)));
      if (each.every((types) => types !== null)) return [...new Set(each.flat())];
    }
    return null;
  }

  /** Keeps the values that pass `predicate`, once a sample shows it passes some (else the schema fits no value). */
  private satisfying<T>(arb: fc.Arbitrary<T>, predicate: (v: T) => boolean, what: string): fc.Arbitrary<T> {
    if (!this.feasible(arb, predicate))
      throw new UnsatisfiableError(`the property-test generator found no value for ${what} in ${TRIES} tries`);
    return arb.filter(predicate);
  }

  private feasible<T>(arb: fc.Arbitrary<T>, predicate: (v: T) => boolean): boolean {
    return fc.sample(arb, { numRuns: TRIES, seed: 1 }).some(predicate);
  }

  /** The result of `build` in a list, or an empty list when the schema it builds for fits no value. */
  private ifSatisfiable<T>(build: () => T): T[] {
    try {
      return [build()];
    } catch (error) {
      if (error instanceof UnsatisfiableError) return [];
      throw error;
    }
  }

  /** Runs `build` with the schema's $ref marked as being built: meeting it again inside is a recursive schema. */
  private whileBuilding<T>(raw: unknown, build: () => T): T {
    const ref = raw && typeof raw === 'object' ? (raw as Schema).$ref : undefined;
    return typeof ref === 'string' ? this.inside(this.building, ref, build) : build();
  }

  private inside<T>(stack: string[], ref: string, run: () => T): T {
    if (stack.includes(ref))
      throw new Error(`$ref ${ref} leads back into a schema it is inside: the property-test generator cannot unfold recursive schemas`);
    stack.push(ref);
    try {
      return run();
    } finally {
      stack.pop();
    }
  }
}

function family(field: string, kind: MutationKind, arb: fc.Arbitrary<unknown>): BrokenFamily {
  return { label: `${field} ${kind}`, arb: arb.map((value) => ({ value, kind, field })) };
}

function omit<K extends keyof Schema>(schema: Schema, keyword: K): Schema {
  const { [keyword]: _omitted, ...rest } = schema;
  return rest;
}

function isSchemaObject(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isIntegerFormat(schema: Schema): boolean {
  return INTEGER_FORMATS[schema.format as GeneratedFormat] !== undefined;
}

/** The JSON type of a value (an integral number is an integer). */
function jsonType(value: unknown): JsonType {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value as JsonType;
}

/** The values with later repeats dropped, as JSON Schema compares them. */
function distinctValues(values: unknown[]): unknown[] {
  const seen = new Set<string>();
  return values.filter((v) => {
    const key = canonicalJson(v);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The object with one more own key; defineProperty, so that "__proto__" becomes an own key of the JSON text. */
function withKey(value: Record<string, unknown>, name: string, extra: unknown): Record<string, unknown> {
  const copy = { ...value };
  Object.defineProperty(copy, name, { value: extra, enumerable: true, configurable: true, writable: true });
  return copy;
}

/** Values close to the allowed ones: other case, a space or letter more or less, the next number. */
function nearValues(allowed: unknown[]): fc.Arbitrary<unknown> {
  const near = allowed.flatMap((v): unknown[] => {
    if (typeof v === 'string')
      return v === '' ? [' '] : [v.toUpperCase(), v[0]!.toUpperCase() + v.slice(1), ` ${v}`, `${v} `, `${v}s`, v.slice(0, -1)];
    if (typeof v === 'number') return [v + 1, v - 1, String(v)];
    if (typeof v === 'boolean') return [!v, String(v)];
    return [];
  });
  return fc.constantFrom(...near, '');
}

/**
 * The smallest positive integer whose multiples are all multiples of `m`: m itself for an
 * integer, else (m = a/10^d) a / gcd(a, 10^d).
 */
function integerStep(m: number): bigint {
  const [mantissa, exponent = '0'] = String(m).split('e');
  const [whole, fraction = ''] = mantissa!.split('.');
  const decimals = fraction.length - Number(exponent);
  const digits = BigInt(whole! + fraction);
  if (decimals <= 0) return digits * 10n ** BigInt(-decimals);
  const scale = 10n ** BigInt(decimals);
  const gcd = (a: bigint, b: bigint): bigint => (b === 0n ? a : gcd(b, a % b));
  return digits / gcd(digits, scale);
}

const floorDiv = (a: bigint, b: bigint) => (a >= 0n ? a / b : -((-a + b - 1n) / b));
const ceilDiv = (a: bigint, b: bigint) => -floorDiv(-a, b);

/** A JSON value of a type none of `types` allows (integers count as numbers, and the other way round); null when every type is allowed. */
function wrongTypeValue(types: JsonType[]): fc.Arbitrary<unknown> | null {
  const candidates: [JsonType, fc.Arbitrary<unknown>][] = [
    ['string', fc.oneof(fc.string({ maxLength: 10 }), fc.constantFrom('1', '0', 'true', 'null', ''))],
    ['integer', fc.integer()],
    ['boolean', fc.boolean()],
    ['null', fc.constant(null)],
    ['array', fc.array(PLAIN_SCALAR, { maxLength: 3 })],
    ['object', fc.dictionary(fc.string({ maxLength: 5 }), PLAIN_SCALAR, { maxKeys: 3 })],
  ];
  const numeric = types.includes('integer') || types.includes('number');
  const left = candidates.filter(([t]) => !types.includes(t) && !(numeric && t === 'integer'));
  return left.length > 0 ? fc.oneof(...left.map(([, arb]) => arb)) : null;
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
