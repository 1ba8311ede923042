import { resolveRef, type OpenApiDocument } from '../contract/document.js';
import {
  CODE_NAMES,
  codeWords,
  FIELD_NAMES,
  key,
  LIST_NAMES,
  MESSAGE_NAMES,
  OBJECT_NAMES,
  reasonPhrase,
  STATUS_NAMES,
} from './error-field-names.js';
import type { HttpProblem } from './problems.js';

type Schema = Record<string, unknown>;

/** What an error body is built from: the problem, and the path of the request it answers. */
export interface ErrorFacts {
  problem: HttpProblem;
  instance: string;
  /** The field an item of a list of invalid fields is about. */
  field?: string;
}

/** Nothing fits: the schema asks for a value the problem cannot give and the contract names none. */
const NONE = Symbol('none');
type Built = unknown;

/** How deep into nested schemas a body is built (a schema that refers to itself stops there). */
const MAX_DEPTH = 6;

/** An object without properties (what a schema that names none of them gets). */
const isEmpty = (value: unknown) => typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 0;

/** The first of the schema's `type`s that is not null, or the one its keywords imply. */
function typeOf(schema: Schema): string | undefined {
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : typeof schema.type === 'string' ? [schema.type] : [];
  const named = types.find((t) => t !== 'null');
  if (named) return named;
  if (schema.properties || schema.required || schema.additionalProperties) return 'object';
  if (schema.items) return 'array';
  // An enum or const alone: the type of its values (`enum: ["0 (Unknown)", ...]`).
  const value = Array.isArray(schema.enum) ? (schema.enum as unknown[]).find((v) => v !== null) : schema.const;
  if (typeof value === 'string' || typeof value === 'boolean') return typeof value;
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return undefined;
}

/** A value the contract names for a schema: its const, default, example, first of examples or enum. */
function named(schema: Schema): Built {
  const examples = Array.isArray(schema.examples) ? (schema.examples as unknown[]) : [];
  const enums = Array.isArray(schema.enum) ? (schema.enum as unknown[]) : [];
  return [schema.const, schema.default, schema.example, examples[0], enums[0]].find((v) => v !== undefined) ?? NONE;
}

/** A string the schema takes: `value` cut to its maxLength, or NONE when it is too short or misses its pattern or enum. */
function fitString(schema: Schema, value: string): Built {
  if (Array.isArray(schema.enum)) {
    return schema.enum.find((e) => typeof e === 'string' && key(e) === key(value)) ?? NONE;
  }
  const cut = typeof schema.maxLength === 'number' ? value.slice(0, schema.maxLength) : value;
  if (typeof schema.minLength === 'number' && cut.length < schema.minLength) return NONE;
  if (typeof schema.pattern === 'string') {
    try {
      if (!new RegExp(schema.pattern, 'u').test(cut)) return NONE;
    } catch {
      return NONE;
    }
  }
  if (schema.format === 'date-time' || schema.format === 'uri' || schema.format === 'uri-reference') return NONE;
  return cut;
}

/** A number the schema takes, or NONE. */
function fitNumber(schema: Schema, value: number): Built {
  if (Array.isArray(schema.enum)) return schema.enum.includes(value) ? value : NONE;
  if (typeof schema.minimum === 'number' && value < schema.minimum) return NONE;
  if (typeof schema.maximum === 'number' && value > schema.maximum) return NONE;
  return value;
}

/**
 * Builds error bodies from the schemas a contract declares for them: each property is given what
 * its name and type say of the problem (a status, a code, a message, the list of invalid fields,
 * the path, the time), a required one the contract says nothing of its default, example or first
 * enum value. The caller validates what it builds.
 */
export class ErrorBodyBuilder {
  private readonly sampled = new Map<unknown, Built>();

  /** `sample` makes a value a schema takes, for a required property neither the problem nor the contract gives one. */
  constructor(
    private readonly doc: OpenApiDocument,
    private readonly sample: (schema: unknown) => unknown = () => undefined,
  ) {}

  /** The property that could not be filled by the last build that failed. */
  missing = '';

  /** The body for `schema`, or undefined when some required part cannot be filled (see `missing`). */
  build(schema: unknown, facts: ErrorFacts): unknown {
    this.missing = '(the body)';
    const value = this.value(schema, facts, 0, '');
    return value === NONE ? undefined : value;
  }

  private value(raw: unknown, facts: ErrorFacts, depth: number, name: string): Built {
    if (depth > MAX_DEPTH) return NONE;
    const schema = resolveRef<Schema | undefined>(this.doc, raw) ?? {};
    if (schema.const !== undefined) return schema.const;
    if (Array.isArray(schema.allOf)) return this.allOf(schema, facts, depth);
    const alternatives = (schema.oneOf ?? schema.anyOf) as unknown[] | undefined;
    if (Array.isArray(alternatives)) {
      for (const alternative of alternatives) {
        const value = this.value(alternative, facts, depth + 1, name);
        if (value !== NONE) return value;
      }
      return NONE;
    }
    const fromProblem = this.fromProblem(schema, facts, depth, key(name), true);
    if (fromProblem !== NONE) return fromProblem;
    const given = named(schema);
    return given !== NONE ? given : this.made(raw);
  }

  /** A value the schema takes, made once per schema (the same every time). */
  private made(raw: unknown): Built {
    if (!this.sampled.has(raw)) this.sampled.set(raw, this.sample(raw) ?? NONE);
    return this.sampled.get(raw);
  }

  /**
   * What the problem gives a value of this schema, by its type and the name of the property it
   * is; a required object is built property by property whatever its name.
   */
  private fromProblem(schema: Schema, facts: ErrorFacts, depth: number, name: string, required = false): Built {
    const { problem, instance } = facts;
    switch (typeOf(schema)) {
      case 'object':
        return depth === 0 || OBJECT_NAMES.has(name) || name === '' || required ? this.object(schema, facts, depth) : NONE;
      case 'array':
        return LIST_NAMES.has(name) || depth === 0 ? this.list(schema, facts, depth) : NONE;
      case 'integer':
      case 'number':
        return STATUS_NAMES.has(name) || depth === 0 ? fitNumber(schema, problem.status) : NONE;
      case 'boolean':
        return name === 'success' || name === 'ok' ? false : name === 'error' ? true : NONE;
      case 'string':
        return this.string(schema, facts, name, instance);
      default:
        return depth === 0 ? this.object(schema, facts, depth) : NONE;
    }
  }

  private string(schema: Schema, facts: ErrorFacts, name: string, instance: string): Built {
    const { problem } = facts;
    if (facts.field !== undefined && FIELD_NAMES.has(name)) return fitString(schema, facts.field);
    if (schema.format === 'date-time' || /^(timestamp|time|datetime|date)$/.test(name)) return new Date().toISOString();
    if (name === 'type' && (schema.format === 'uri' || schema.format === 'uri-reference' || !schema.enum)) return 'about:blank';
    if (name === 'instance' || name === 'path' || name === 'uri' || name === 'url')
      return fitString({ ...schema, format: undefined }, instance);
    if (name === 'title') return fitString(schema, reasonPhrase(problem.status));
    const candidates = [
      ...(CODE_NAMES.has(name) ? codeWords(facts.problem) : []),
      ...(MESSAGE_NAMES.has(name) || name === '' ? [problem.message] : []),
    ];
    for (const candidate of candidates) {
      const fitted = fitString(schema, candidate);
      if (fitted !== NONE) return fitted;
    }
    return NONE;
  }

  private object(schema: Schema, facts: ErrorFacts, depth: number): Built {
    const properties = (schema.properties ?? {}) as Record<string, unknown>;
    const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
    const body: Record<string, unknown> = {};
    for (const [name, property] of Object.entries(properties)) {
      const value = required.has(name) ? this.value(property, facts, depth + 1, name) : this.optional(property, facts, depth, name);
      if (value !== NONE) body[name] = value;
      else if (required.has(name)) return this.lacks(name);
    }
    for (const name of required) if (!(name in body)) return this.lacks(name);
    return body;
  }

  private lacks(name: string): Built {
    this.missing = name;
    return NONE;
  }

  /** An optional property: only what the problem gives it, never the contract's example, and nothing empty. */
  private optional(raw: unknown, facts: ErrorFacts, depth: number, name: string): Built {
    const schema = resolveRef<Schema | undefined>(this.doc, raw) ?? {};
    const value =
      schema.allOf || schema.oneOf || schema.anyOf
        ? this.value(raw, facts, depth + 1, name)
        : this.fromProblem(schema, facts, depth + 1, key(name));
    return isEmpty(value) || (Array.isArray(value) && value.some(isEmpty)) ? NONE : value;
  }

  /** The parts of `allOf` built each, and the schema's own properties beside them, in one object. */
  private allOf(schema: Schema, facts: ErrorFacts, depth: number): Built {
    const { allOf, ...own } = schema;
    const sources = [...(allOf as unknown[]), ...(own.properties || own.required ? [own] : [])];
    const parts = sources.map((part) => this.value(part, facts, depth + 1, ''));
    if (parts.some((part) => part === NONE || typeof part !== 'object' || part === null || Array.isArray(part))) return NONE;
    return Object.assign({}, ...(parts as object[]));
  }

  /** The list of invalid fields: one item per detail of the problem, as the item's schema has them. */
  private list(schema: Schema, facts: ErrorFacts, depth: number): Built {
    const { details, message } = facts.problem;
    const entries =
      details.length > 0 ? details : typeof schema.minItems === 'number' && schema.minItems > 0 ? [{ field: '', message }] : [];
    const items = resolveRef<Schema | undefined>(this.doc, schema.items) ?? {};
    const built = entries.map((detail) => {
      if (typeOf(items) === 'string') return fitString(items, detail.field ? `${detail.field} ${detail.message}` : detail.message);
      const problem = Object.assign(Object.create(facts.problem) as HttpProblem, { message: detail.message, details: [] });
      return this.value(items, { problem, instance: facts.instance, field: detail.field }, depth + 1, '');
    });
    return built.includes(NONE) ? NONE : built;
  }
}
