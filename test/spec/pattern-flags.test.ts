import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadSpec } from '../../src/contract/load-spec.js';

// JSON Schema validators compile a pattern with the u flag (ajv) or without it (draft-07
// validators, fastify's serializer): every pattern of the contract must accept the same strings
// either way, or one tool refuses what the service stores ("🐶" was one).

/** Every `pattern` in the contract, with where it is. */
function patterns(node: unknown, where = '#'): [string, string][] {
  if (typeof node !== 'object' || node === null) return [];
  return Object.entries(node as Record<string, unknown>).flatMap(([key, value]) =>
    key === 'pattern' && typeof value === 'string' ? [[`${where}/${key}`, value] as [string, string]] : patterns(value, `${where}/${key}`),
  );
}

const found = patterns(loadSpec());

// Text of every kind: code points above U+FFFF, unpaired surrogates, controls, invisible ones.
const text = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.string({ unit: fc.constantFrom('R', ' ', '\u200b', '\u2800', '\ud83d', '\udc36', '\u{1F436}', '\u{E0041}', '\u0001'), maxLength: 6 }),
);

describe("the contract's patterns", () => {
  it('include PetName', () => {
    expect(found.map(([where]) => where)).toContain('#/components/schemas/PetName/pattern');
  });

  it.each(found)('%s means the same with and without the u flag', (_where, pattern) => {
    const unicode = new RegExp(pattern, 'u');
    const plain = new RegExp(pattern);
    for (const name of ['Rex', '\u{1F436}', 'Rex \u{1F436}', '\u{E0041}', '\ud83d', '\udc36x'])
      expect(plain.test(name), name).toBe(unicode.test(name));
    fc.assert(
      fc.property(text, (value) => plain.test(value) === unicode.test(value)),
      { numRuns: 2000 },
    );
  });
});
