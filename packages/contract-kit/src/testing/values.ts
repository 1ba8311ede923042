import fc from 'fast-check';
import { NOTHING, type ContractSchemas } from './schemas.js';
import { editedWhile, editsOf } from './value-edits.js';

/** Thrown when the library makes no value a schema accepts: what needs that schema is skipped, with this note. */
export class UnsupportedSchemaError extends Error {}

/** A value its schema refuses: where it is broken (`body.name`), and the keywords Ajv refuses it for (`maxLength`). */
export interface Broken {
  value: unknown;
  field: string;
  kind: string;
}

/** Edits tried on a valid value to make another one. */
const EDITS = 6;

/**
 * The longest an edited value may be, URL-encoded as JSON: one its schema allows but no server
 * takes in a URL or a header (Node refuses more than 16 KiB of them with 431) tells nothing of
 * the contract. Six edits that each add up to 1,000 characters would pass it.
 */
const EDITED_MAX_ENCODED = 4096;

/** Seeds tried before a schema is called one the library makes no value for. */
const TRIES = 50;

/**
 * Values of a contract's JSON Schemas for fast-check. Valid values come from json-schema-faker,
 * seeded by fast-check, and from a few generic edits of them (an awkward character, an edge
 * number, a property dropped, …); invalid values are such edits that break the value. Ajv
 * (ContractSchemas) is the judge of both: a value is valid only when it accepts it, broken
 * only when it refuses it, and only at the place that was edited. No keyword is special here:
 * a schema the library makes no valid value for throws UnsupportedSchemaError.
 */
export class SchemaValues {
  private readonly cache = new Map<string, fc.Arbitrary<unknown>>();

  constructor(private readonly matcher: ContractSchemas) {}

  /** Values the schema accepts. */
  valid(schema: unknown): fc.Arbitrary<unknown> {
    const key = JSON.stringify(schema ?? true);
    let arb = this.cache.get(key);
    if (!arb) {
      const accepted = (v: unknown) => v !== NOTHING && carriedExactly(v) && this.matcher.accepts(schema, v);
      const made = fc.integer({ min: 1, max: 0x7fffffff }).map((seed) => this.matcher.generate(schema, seed));
      if (!fc.sample(made, { numRuns: TRIES, seed: 1 }).some(accepted)) {
        throw new UnsupportedSchemaError(`json-schema-faker made no value that ${key.slice(0, 200)} accepts in ${TRIES} tries`);
      }
      const library = made.filter(accepted);
      const keeps = (v: unknown) => carriedExactly(v) && fitsRequest(v) && accepted(v);
      // Edits the schema nearly always refuses (of an enum's values, say) would cost retries and add little.
      const kept = fc.sample(library.chain(editsOf), { numRuns: TRIES, seed: 1 }).filter((e) => keeps(e.value)).length;
      const edited = library.chain((v) => editedWhile(v, keeps, EDITS));
      arb = kept >= TRIES / 10 ? fc.oneof({ weight: 1, arbitrary: library }, { weight: 3, arbitrary: edited }) : library;
      this.cache.set(key, arb);
    }
    return arb;
  }

  /** Values the schema refuses, each a valid value with one thing changed, named `field` and the path to what changed. */
  invalid(schema: unknown, field: string): fc.Arbitrary<Broken> {
    return this.valid(schema)
      .chain(editsOf)
      .map((edit) => {
        const refusals = this.matcher.refusals(schema, edit.value);
        // Refused for what was changed, not for something around it (an item repeated by a change to another).
        if (!refusals || !refusals.every((r) => edit.at.every((step, i) => r.at[i] === step))) return null;
        return { value: edit.value, field: [field, ...edit.at].join('.'), kind: keywords(refusals) };
      })
      .filter((b): b is Broken => b !== null);
  }

  /** The keywords the schema refuses the value for (`maximum+type`), or null when it is not refused. */
  refused(schema: unknown, value: unknown): string | null {
    const refusals = this.matcher.refusals(schema, value);
    return refusals && keywords(refusals);
  }
}

function keywords(refusals: { keyword: string }[]): string {
  return [...new Set(refusals.map((r) => r.keyword))].sort().join('+');
}

/** Whether a value is short enough for any place of a request (see EDITED_MAX_ENCODED). */
function fitsRequest(value: unknown): boolean {
  return encodeURIComponent(JSON.stringify(value) ?? '').length <= EDITED_MAX_ENCODED;
}

/**
 * Whether JSON carries each number of the value exactly, as the server takes it (I-JSON, RFC 7493):
 * no bigint, and no integer past 2^53-1 (`2 ** 53`, `1e21`), which the server refuses as a number
 * it cannot take exactly, whatever the schema says.
 */
function carriedExactly(value: unknown): boolean {
  if (typeof value === 'bigint') return false;
  if (typeof value === 'number') return !Number.isInteger(value) || Number.isSafeInteger(value);
  return typeof value !== 'object' || value === null || Object.values(value).every(carriedExactly);
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

/** Integers written in a way no contract settles (leading zero, plus sign, -0). */
const AMBIGUOUS_INTEGER = /^[+-]?0\d|^\+|^-0$/;

/**
 * The values a parameter's text can stand for: itself, the number it spells plainly
 * (`String(n)` gives it back) and the boolean; null for integers written in a way the contract
 * does not settle (leading zero, plus sign, -0), which are neither valid nor invalid.
 */
export function readingsOf(text: string): unknown[] | null {
  if (AMBIGUOUS_INTEGER.test(text)) return null;
  const readings: unknown[] = [text];
  if (text !== '' && String(Number(text)) === text) readings.push(Number(text));
  if (text === 'true' || text === 'false') readings.push(text === 'true');
  return readings;
}
