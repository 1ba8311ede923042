import fc from 'fast-check';

/**
 * Generic edits of a JSON value for fast-check (an awkward character, an edge number, a property
 * dropped or added, …), each with the path of what it changed; no schema is read here.
 */

/** A value with one thing changed, and the path of what changed. */
interface Edit {
  value: unknown;
  at: string[];
}

/** Characters that break patterns and parsers: controls, white space, quotes, non-BMP, lone surrogates, and those NFC changes. */
const AWKWARD_CHARACTERS = [
  ...['\u0000', '\u0001', '\t', '\n', '\r', '\u001f', '\u007f', '\u0085', ' ', '\u00a0', '\u2028', '\u200b', '\u200e', '\ufeff'],
  ...['"', "'", '\\', '/', '%', '&', '=', '?', '#', '<', '>', '{', '}', '$', '`', ';', ',', '+', '.', '-', '_', '~', '@'],
  ...['é', 'e\u0301', '\u0301', '\u212b', '\u1100\u1161', 'ß', 'Ω', '中', '🐕', '\ud83d', '\udc15', 'A', 'z', '0', '9'],
];

const AWKWARD = fc.constantFrom(...AWKWARD_CHARACTERS);
/** Text of all of Unicode; one arbitrary, built once (each new one maps every code point again, about a second). */
const ANY_TEXT = fc.string({ unit: 'binary', minLength: 1, maxLength: 20 });

/** Text that is almost a value, or no value at all. */
const ODD_TEXT = ['', 'abc', '1.5', '2.0', '0x10', '1e1', ' 1', '1 ', '1,2', 'NaN', 'Infinity', '-Infinity', 'null', 'true', '[]', '{}'];

/** Numbers where ranges and encodings end. */
const EDGE_NUMBERS = [0, 1, -1, 2, 10, 100, 255, 256, 1000, 0.5, -0.5, 1.5, 1e-7, 2 ** 31 - 1, 2 ** 31, -(2 ** 31), 2 ** 32];
const EDGE_LARGE_NUMBERS = [2 ** 53 - 1, 2 ** 53, -(2 ** 53 - 1), 1e21, 3.4e38, Number.MAX_VALUE];

/** JSON values that break nothing by themselves (no number JSON cannot carry exactly). */
const PLAIN_SCALAR = fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.boolean(), fc.constant(null));
const PLAIN_JSON = fc.oneof(
  PLAIN_SCALAR,
  fc.array(PLAIN_SCALAR, { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), PLAIN_SCALAR, { maxKeys: 3 }),
);

/** Names of properties to add: ones that trip JavaScript, others' cases, any. Not empty and without "/", which express-openapi-validator cannot name in its findings. */
const PROPERTY_NAMES = fc.oneof(
  fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'id', ' ', 'a.b'),
  fc.string({ minLength: 1, maxLength: 12 }),
);

/** Edits of a string as text: a character in or out, shorter, longer, another case, odd text, any text. */
function textEdits(s: string): fc.Arbitrary<string> {
  const chars = [...s];
  const insert = (at: number, text: string) =>
    [...chars.slice(0, at % (chars.length + 1)), text, ...chars.slice(at % (chars.length + 1))].join('');
  // Characters from all of Unicode weigh most: a library's strings are mostly ASCII.
  return fc.oneof(
    { weight: 3, arbitrary: fc.tuple(fc.nat(), AWKWARD).map(([at, c]) => insert(at, c)) },
    { weight: 3, arbitrary: fc.tuple(fc.nat(), ANY_TEXT).map(([at, t]) => insert(at, t)) },
    { weight: 3, arbitrary: ANY_TEXT },
    { weight: 1, arbitrary: fc.nat(chars.length).map((n) => chars.slice(0, n).join('')) },
    { weight: 1, arbitrary: fc.nat().map((at) => chars.filter((_, i) => i !== at % Math.max(chars.length, 1)).join('')) },
    {
      weight: 1,
      arbitrary: fc.integer({ min: 1, max: 1000 }).map((extra) => {
        const unit = chars.length > 0 ? chars : ['x'];
        return [...chars, ...Array.from({ length: extra }, (_, i) => unit[i % unit.length])].join('');
      }),
    },
    { weight: 1, arbitrary: fc.constantFrom(s.toUpperCase(), s.toLowerCase(), ` ${s}`, `${s} `, `${s}s`, ...ODD_TEXT) },
  );
}

/** Edits of a number: one more or less, a fraction off, negated, scaled, an edge number, or (integers) one far past 2^53, as a bigint. */
function numberEdits(n: number): fc.Arbitrary<number | bigint> {
  const near = fc.constantFrom(n + 1, n - 1, n + 0.5, -n, n * 10, n / 10);
  const edges = fc.constantFrom(...EDGE_NUMBERS, ...EDGE_LARGE_NUMBERS);
  // Finite, and no -0 (JSON writes it 0: it would not come back as sent).
  const numbers = fc
    .oneof(near, edges)
    .filter((v) => Number.isFinite(v))
    .map((v) => (v === 0 ? 0 : v));
  if (!Number.isSafeInteger(n)) return numbers;
  const far = fc.tuple(fc.bigInt({ min: 1n, max: 10n ** 20n }), fc.boolean()).map(([d, up]) => (up ? BigInt(n) + d : BigInt(n) - d));
  return fc.oneof(numbers, far);
}

/** The text of a parameter value edited: as text, and as the number it spells. */
export function wireEdits(text: string): fc.Arbitrary<string> {
  const n = Number(text);
  if (text.trim() === '' || !Number.isFinite(n)) return textEdits(text);
  return fc.oneof(textEdits(text), numberEdits(n).map(String));
}

/** Up to `times` edits of a value, one after the other, each kept only when `keeps` says so. */
export function editedWhile(value: unknown, keeps: (v: unknown) => boolean, times: number): fc.Arbitrary<unknown> {
  if (times === 0) return fc.constant(value);
  return editsOf(value).chain((e) => editedWhile(keeps(e.value) ? e.value : value, keeps, times - 1));
}

/** One edit of one node of a JSON value (the root included), with the path of what changed. */
export function editsOf(value: unknown): fc.Arbitrary<Edit> {
  return fc
    .constantFrom(...paths(value))
    .chain((path) => nodeEdits(at(value, path)).map(({ node, under }) => ({ value: replace(value, path, node), at: [...path, ...under] })));
}

/** Edits of a node: another value of any type, and the edits of its own type; `under` is the property an edit added or dropped. */
function nodeEdits(node: unknown): fc.Arbitrary<{ node: unknown; under: string[] }> {
  const whole = (arb: fc.Arbitrary<unknown>) => arb.map((n) => ({ node: n, under: [] as string[] }));
  const own: fc.Arbitrary<{ node: unknown; under: string[] }>[] = [];
  if (typeof node === 'string') own.push(whole(textEdits(node)));
  if (typeof node === 'number') own.push(whole(numberEdits(node)));
  if (typeof node === 'boolean') own.push(whole(fc.constant(!node)));
  if (Array.isArray(node)) {
    const items = node as unknown[];
    own.push(
      whole(fc.constant([])),
      whole(
        fc
          .integer({ min: 1, max: 20 })
          .map((extra) => [...items, ...Array.from({ length: extra }, (_, i) => items[i % items.length] ?? null)]),
      ),
    );
    if (items.length > 0) {
      own.push(
        whole(fc.nat(items.length - 1).map((i) => items.filter((_, j) => j !== i))),
        whole(fc.nat(items.length - 1).map((i) => [...items, items[i]])),
      );
    }
  } else if (node && typeof node === 'object') {
    const object = node as Record<string, unknown>;
    const keys = Object.keys(object);
    if (keys.length > 0) {
      own.push(
        fc.constantFrom(...keys).map((name) => {
          const { [name]: _dropped, ...rest } = object;
          return { node: rest, under: [name] };
        }),
      );
    }
    const names = fc.oneof(PROPERTY_NAMES, ...(keys.length > 0 ? [fc.constantFrom(...keys.map((k) => k.toUpperCase()))] : []));
    own.push(
      fc
        .tuple(names, PLAIN_JSON)
        .filter(([name]) => name !== '' && !name.includes('/') && !Object.hasOwn(object, name))
        .map(([name, extra]) => ({ node: withKey(object, name, extra), under: [name] })),
    );
  }
  // Edits of the node's own type three times in four: other types are one way of being wrong among many.
  return own.length === 0
    ? whole(PLAIN_JSON)
    : fc.oneof({ weight: 1, arbitrary: whole(PLAIN_JSON) }, { weight: 3, arbitrary: fc.oneof(...own) });
}

/** The paths of every node of a JSON value, the root's ([]) first. */
function paths(value: unknown, prefix: string[] = []): string[][] {
  const out = [prefix];
  if (value && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) out.push(...paths(child, [...prefix, key]));
  }
  return out;
}

function at(value: unknown, path: string[]): unknown {
  return path.reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], value);
}

/** A copy of `value` with the node at `path` replaced. */
function replace(value: unknown, path: string[], node: unknown): unknown {
  if (path.length === 0) return node;
  const [key, ...rest] = path as [string, ...string[]];
  if (Array.isArray(value)) return (value as unknown[]).map((item, i) => (String(i) === key ? replace(item, rest, node) : item));
  const object = value as Record<string, unknown>;
  return withKey(object, key, replace(object[key], rest, node));
}

/** The object with one more (or another) own key; defineProperty, so that "__proto__" becomes an own key of the JSON text. */
function withKey(value: Record<string, unknown>, name: string, extra: unknown): Record<string, unknown> {
  const copy = { ...value };
  Object.defineProperty(copy, name, { value: extra, enumerable: true, configurable: true, writable: true });
  return copy;
}
