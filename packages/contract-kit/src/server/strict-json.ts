import { changedByParse } from './exact-numbers.js';
import { Place } from './json-place.js';
import type { ProblemDetail } from './problems.js';

/**
 * Properties one object of a body may have, unless told otherwise: a body of thousands of unknown
 * ones is refused as a whole, before the validator names each of them and JSON.parse builds it.
 */
export const MAX_PROPERTIES = 256;

/**
 * How many arrays and objects a body may nest one in another, unless told otherwise: real bodies
 * nest a few deep (GeoJSON six), .NET's System.Text.Json stops at 64 too, and JSON.parse is slow
 * on deep nesting, so a deeper body is refused before it is parsed.
 */
export const MAX_DEPTH = 64;

/** What one JSON body may hold (see MAX_PROPERTIES and MAX_DEPTH). */
export interface JsonLimits {
  maxProperties: number;
  maxDepth: number;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const MINUS = 0x2d;
const [DOT, UPPER_E, LOWER_E] = [0x2e, 0x45, 0x65];
const [ZERO, NINE] = [0x30, 0x39];
const [OPEN_ARRAY, CLOSE_ARRAY, OPEN_OBJECT, CLOSE_OBJECT] = [0x5b, 0x5d, 0x7b, 0x7d];

/**
 * Where the string that opens at `start` ends, or -1 when it does not: at the first quote when
 * no backslash comes right before it (most strings), else at the first quote that no escape
 * takes, found character by character.
 */
function stringEnd(text: string, start: number): number {
  const quote = text.indexOf('"', start + 1);
  if (quote < 0 || text.charCodeAt(quote - 1) !== BACKSLASH) return quote;
  for (let i = start + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) return i;
    if (c === BACKSLASH) i++;
  }
  return -1;
}

/**
 * The first limit a body breaks, and where: an array or object opened deeper than `maxDepth`, or
 * an object's property past `maxProperties` (its colon); null when it breaks neither. One pass
 * that counts and builds nothing, before JSON.parse; the text need not be valid JSON.
 */
function overLimit(text: string, { maxDepth, maxProperties }: JsonLimits): { limit: 'depth' | 'properties'; at: number } | null {
  // The properties of the open object at each depth so far, -1 for an array.
  const properties: number[] = [-1];
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      i = stringEnd(text, i);
      if (i < 0) return null;
    } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (++depth > maxDepth) return { limit: 'depth', at: i };
      properties[depth] = c === OPEN_OBJECT ? 0 : -1;
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
      if (depth > 0) depth--;
    } else if (c === COLON && properties[depth]! >= 0) {
      if (++properties[depth]! > maxProperties) return { limit: 'properties', at: i };
    }
  }
  return null;
}

/** A key as JSON.parse reads it; its text as written when it does not parse (the text is not JSON). */
function keyOf(text: string, start: number, end: number): string {
  const written = text.slice(start + 1, end);
  if (!written.includes('\\')) return written;
  try {
    return JSON.parse(text.slice(start, end + 1)) as string;
  } catch {
    return written;
  }
}

const isDigit = (c: number) => c >= ZERO && c <= NINE;
/** What may follow a number's digits: its fraction and exponent, as JSON.parse checked them. */
const NUMBER_TAIL = /[\d.eE+-]*/y;

/** Problems a body reports at most. */
const MAX_PROBLEMS = 10;

/**
 * What JSON.parse would take silently from a valid JSON text but a strict API refuses, one entry
 * per field, the first MAX_PROBLEMS of them, in the first `until` characters:
 * - a key that appears twice in one object (`{"id":3,"id":4}`): JSON.parse keeps
 *   the last, so what was validated is not what the client may believe it sent (RFC 8259, 4);
 * - a number JSON.parse would change into an integer: one that is not an integer but rounds to
 *   one (`4503599627370496.5`, `1.0000000000000001`), or an integer beyond 2^53-1. Any exact
 *   spelling of an integer in range is taken as that integer (`3`, `3.0`, `1e2`, `0.3e1`), as
 *   JSON Schema counts it.
 * Also where the walk stopped. Strings are skipped; a text that is not JSON is walked all the same.
 */
function strictJsonProblems(text: string, until = text.length): { problems: ProblemDetail[]; place: Place } {
  const problems: ProblemDetail[] = [];
  const place = new Place();
  for (let i = 0; i < until && problems.length < MAX_PROBLEMS; i++) {
    const c = text.charCodeAt(i);
    if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      place.open(c === OPEN_OBJECT);
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
      place.close();
    } else if (c === COMMA) {
      place.next();
    } else if (c === QUOTE) {
      const end = stringEnd(text, i);
      if (end < 0) break;
      if (place.keyNext[place.depth]) {
        const key = keyOf(text, i, end);
        if (!place.key(key)) problems.push({ field: place.field(), message: 'is given more than once' });
      }
      i = end;
    } else if (c === MINUS || isDigit(c)) {
      let end = i + 1;
      while (isDigit(text.charCodeAt(end))) end++;
      // Digits alone, at most 15 of them (most numbers): exact, let through without a string.
      const next = text.charCodeAt(end);
      if (end - i < 16 && next !== DOT && next !== LOWER_E && next !== UPPER_E) {
        i = end - 1;
        continue;
      }
      NUMBER_TAIL.lastIndex = end;
      NUMBER_TAIL.test(text);
      const token = text.slice(i, NUMBER_TAIL.lastIndex);
      i = NUMBER_TAIL.lastIndex - 1;
      if (changedByParse(token)) {
        problems.push({
          field: place.field(),
          message: `${token} cannot be taken exactly: integers go up to 9007199254740991, and a number that is not an integer must not round to one`,
        });
      }
    }
  }
  return { problems, place };
}

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** A JSON body refused before its schema is checked, and why. */
export interface StrictJsonRefusal {
  message: string;
  details: ProblemDetail[];
}

/** The refusal of a body that breaks one of its limits (see overLimit). */
function limitRefusal(text: string, over: { limit: 'depth' | 'properties'; at: number }, limits: JsonLimits): StrictJsonRefusal {
  if (over.limit === 'depth') {
    const message = `nests arrays and objects more than ${limits.maxDepth} deep`;
    return { message: `The request body ${message}.`, details: [{ field: 'body', message }] };
  }
  // The object's own place: the walk stops at its colon, inside it.
  const { place } = strictJsonProblems(text, over.at);
  return {
    message: 'The request is invalid; see details.',
    details: [{ field: place.field(place.depth - 1), message: `has more than ${limits.maxProperties} properties` }],
  };
}

/**
 * The value of the bytes of an application/json body, or why they are refused before its schema
 * is checked: empty, not UTF-8, nested deeper or with an object larger than `limits` allow
 * (refused before JSON.parse, which would build it), not JSON, or JSON that JSON.parse would
 * take with a silent change ({@link strictJsonProblems}).
 */
export function parseStrictJson(
  bytes: Uint8Array,
  { maxProperties = MAX_PROPERTIES, maxDepth = MAX_DEPTH }: Partial<JsonLimits> = {},
): { value: unknown } | { refusal: StrictJsonRefusal } {
  if (bytes.length === 0)
    return { refusal: { message: 'The request body is missing.', details: [{ field: 'body', message: 'is required' }] } };
  let text: string;
  try {
    text = UTF8.decode(bytes);
  } catch {
    return { refusal: { message: 'The request body is not valid UTF-8.', details: [{ field: 'body', message: 'is not valid UTF-8' }] } };
  }
  const limits = { maxProperties, maxDepth };
  const over = overLimit(text, limits);
  if (over) return { refusal: limitRefusal(text, over, limits) };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { refusal: { message: 'The request body is not valid JSON.', details: [{ field: 'body', message: 'is not valid JSON' }] } };
  }
  const { problems } = strictJsonProblems(text);
  return problems.length > 0 ? { refusal: { message: 'The request is invalid; see details.', details: problems } } : { value };
}
