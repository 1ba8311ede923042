import { resolveRef, type OpenApiDocument } from '../contract/document.js';
import type { Operation } from '../contract/operations.js';
import type { ProblemDetail } from './problems.js';

type Schema = Record<string, unknown>;

/** The schema a field of a request (`body.owner.name`, `query.limit`) has in the operation, or undefined. */
function schemaOf(doc: OpenApiDocument, op: Operation, field: string, contentType: string | undefined): Schema | undefined {
  const [where, ...rest] = field.split('.');
  let schema: unknown;
  if (where === 'body') {
    const content = op.requestBody?.content ?? {};
    const media = (contentType && content[contentType.split(';')[0]!.trim().toLowerCase()]) || Object.values(content)[0];
    schema = media?.schema;
  } else {
    // A header is named in lower case, as Node gives it.
    const named = (name: string) => (where === 'header' ? name.toLowerCase() === rest[0]?.toLowerCase() : name === rest[0]);
    const parameter = op.parameters.find((p) => p.in === where && named(p.name));
    schema = parameter?.schema;
    rest.shift();
  }
  for (const part of rest) {
    schema = childOf(doc, schema, part);
    if (schema === undefined) return undefined;
  }
  return schema === undefined ? undefined : resolveRef<Schema>(doc, schema);
}

/** The schema of property or item `part` of `schema`, looking through `$ref` and `allOf`. */
function childOf(doc: OpenApiDocument, schema: unknown, part: string): unknown {
  const resolved = resolveRef<Schema | undefined>(doc, schema);
  if (!resolved || typeof resolved !== 'object') return undefined;
  const properties = resolved.properties as Record<string, unknown> | undefined;
  if (properties?.[part] !== undefined) return properties[part];
  if (/^\d+$/.test(part) && resolved.items !== undefined) return resolved.items;
  for (const member of (resolved.allOf as unknown[] | undefined) ?? []) {
    const found = childOf(doc, member, part);
    if (found !== undefined) return found;
  }
  return undefined;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
const number = (message: string) => Number(/-?\d+(\.\d+)?/.exec(message)?.[0]);
const article = (type: string) => (/^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`);

/**
 * What a validator (express-openapi-validator, Prism: Ajv underneath) says of one field of a
 * request, in words a person reads, never a pattern: `must not be empty`, `must be at most 100
 * characters`. Ajv's English messages are turned by keyword; a pattern is told by the schema's `x-pattern-message` (the kit's extension, a
 * sentence such as "must not contain control or invisible characters"), else as a form the
 * field does not have, with the schema's example where it gives one.
 */
function readableMessage(
  doc: OpenApiDocument,
  op: Operation,
  /** Where, as the kit names it: `body.name`, `query.limit`, `path.bookId`. */
  field: string,
  /** What JSON Schema keyword failed (Ajv's `keyword`: `maxLength`, `pattern`), and Ajv's message. */
  failure: { keyword: string | undefined; message: string },
  /** The request's Content-Type: which of the operation's bodies the field is in. */
  contentType?: string,
): string {
  const { keyword, message } = failure;
  const schema = () => schemaOf(doc, op, field, contentType);
  switch (keyword) {
    case 'minLength': {
      const n = number(message);
      return n === 1 ? 'must not be empty' : `must be at least ${plural(n, 'character')}`;
    }
    case 'maxLength':
      return `must be at most ${plural(number(message), 'character')}`;
    case 'minItems':
      return number(message) === 1 ? 'must not be empty' : `must have at least ${plural(number(message), 'item')}`;
    case 'maxItems':
      return `must have at most ${plural(number(message), 'item')}`;
    case 'minProperties':
      return `must have at least ${plural(number(message), 'field')}`;
    case 'maxProperties':
      return `must have at most ${plural(number(message), 'field')}`;
    case 'uniqueItems':
      return 'must not hold the same item twice';
    case 'minimum':
      return `must be at least ${number(message)}`;
    case 'maximum':
      return `must be at most ${number(message)}`;
    case 'exclusiveMinimum':
      return `must be greater than ${number(message)}`;
    case 'exclusiveMaximum':
      return `must be less than ${number(message)}`;
    case 'multipleOf':
      return `must be a multiple of ${number(message)}`;
    case 'required':
      return 'is required';
    case 'additionalProperties':
    case 'unevaluatedProperties':
      return 'is not a field this takes';
    case 'type': {
      const types = /^must be (.+)$/.exec(message)?.[1]?.split(',') ?? [];
      return types.length > 0 ? `must be ${types.map(article).join(' or ')}` : 'has the wrong type';
    }
    case 'format':
      return `must be ${article(/format "([^"]+)"/.exec(message)?.[1] ?? 'value of its format')}`;
    case 'enum': {
      const values = schema()?.enum;
      return Array.isArray(values) && values.length <= 20
        ? `must be one of ${values.map((v) => JSON.stringify(v)).join(', ')}`
        : 'must be one of the values the contract lists';
    }
    case 'const':
      return 'must be the one value the contract gives';
    case 'pattern': {
      const found = schema();
      const told = found?.['x-pattern-message'];
      if (typeof told === 'string') return told;
      return found?.example !== undefined && typeof found.example === 'string'
        ? `is not in the form this takes (for example ${JSON.stringify(found.example)})`
        : 'is not in the form this takes';
    }
    default:
      return /pattern "/.test(message) ? 'is not in the form this takes' : message;
  }
}

/** What a validator found wrong with one field of a request: where (as the kit names it), the failed keyword, its message. */
export interface Finding {
  field: string;
  keyword: string | undefined;
  message: string;
}

/**
 * The details of a 400 from what a validator (express-openapi-validator, Prism) found, each in
 * words (see readableMessage); a field of the wrong length is told so, and the pattern it also
 * fails says no more.
 */
export function readableDetails(doc: OpenApiDocument, op: Operation, findings: Finding[], contentType?: string): ProblemDetail[] {
  const wrongLength = new Set(findings.filter((f) => f.keyword === 'minLength' || f.keyword === 'maxLength').map((f) => f.field));
  return findings
    .filter((f) => !(f.keyword === 'pattern' && wrongLength.has(f.field)))
    .map((f) => ({ field: f.field, message: readableMessage(doc, op, f.field, f, contentType) }));
}
