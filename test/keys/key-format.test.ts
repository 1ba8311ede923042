import { describe, expect, it } from 'vitest';
import { generateKey, hashKey, parseKey } from '../../src/service/keys/key-format.js';

describe('API key format', () => {
  it('starts with the environment prefix and passes its own checksum', () => {
    for (const env of ['production', 'staging'] as const) {
      const { key, hash, displayPrefix } = generateKey(env);
      expect(key).toMatch(env === 'production' ? /^as_prod_[0-9A-Za-z]{38}$/ : /^as_stag_[0-9A-Za-z]{38}$/);
      expect(parseKey(key)).toEqual({ ok: true, environment: env, hash });
      expect(hash).toBe(hashKey(key));
      expect(key.startsWith(displayPrefix)).toBe(true);
    }
  });

  it('never issues the same key twice', () => {
    const keys = new Set(Array.from({ length: 1000 }, () => generateKey('production').key));
    expect(keys.size).toBe(1000);
  });

  it('refuses any single-character change by checksum', () => {
    const { key } = generateKey('production');
    let caught = 0;
    for (let i = 8; i < key.length; i++) {
      const changed = key.slice(0, i) + (key[i] === 'x' ? 'y' : 'x') + key.slice(i + 1);
      if (!parseKey(changed).ok) caught++;
    }
    expect(caught).toBe(key.length - 8);
  });

  it.each(['', 'as_prod_', 'as_dev_' + 'a'.repeat(38), 'as_prod_' + 'a'.repeat(37), 'as_prod_' + 'a'.repeat(37) + '!', 'Bearer as_prod_x'])(
    'calls %j malformed',
    (token) => {
      expect(parseKey(token)).toEqual({ ok: false, reason: 'malformed' });
    },
  );
});
