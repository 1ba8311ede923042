import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { issueKey, type KeyRequest } from '../../src/service/keys/issue-key.js';
import { KeyRequestError } from '../../src/service/keys/key-request-error.js';
import { SqliteStore } from '../../src/service/store/sqlite/sqlite-store.js';

// issueKey is the domain's: what it refuses it says about the key, never in the keys CLI's
// options (keys-cli.test.ts checks the CLI's own words).
const dir = mkdtempSync(join(tmpdir(), 'animal-store-issue-key-'));
const store = SqliteStore.open(join(dir, 'store.db'));
afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const refusal = async (request: KeyRequest): Promise<KeyRequestError> => {
  const error: unknown = await issueKey(store, request, new Date()).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(KeyRequestError);
  return error as KeyRequestError;
};

describe('issueKey', () => {
  it.each([
    ['an empty name', { name: '  ', plan: 'free' }, 'name_length', "a key's name must be 1 to 200 characters"],
    ['a name of 201 characters', { name: 'x'.repeat(201), plan: 'free' }, 'name_length', "a key's name must be 1 to 200 characters"],
    ['an Enterprise key without limits', { name: 'big', plan: 'enterprise' }, 'limits_missing', 'an Enterprise key needs its own limits'],
    [
      'more a minute than a day',
      { name: 'big', plan: 'enterprise', perMinute: 10, perDay: 5 },
      'limits_order',
      "a key's limit per minute (10) cannot be larger than its limit per day (5)",
    ],
    ['limits on a fixed plan', { name: 'small', plan: 'pro', perDay: 5 }, 'limits_not_allowed', "the pro plan's are fixed"],
    ['a newline in the name', { name: 'Eve\nkey_1 Mallory', plan: 'free' }, 'name_characters', 'control characters'],
    ['ESC, OSC and BEL in the name', { name: 'Eve\u001b]0;pwned\u0007', plan: 'free' }, 'name_characters', 'control characters'],
    ['a carriage return in the name', { name: 'Eve\rAlice', plan: 'free' }, 'name_characters', 'control characters'],
    ['a C1 control (CSI) in the name', { name: 'Eve\u009b2J', plan: 'free' }, 'name_characters', 'control characters'],
    ['a name of tags only', { name: '\u{E0041}\u{E0042}', plan: 'free' }, 'name_characters', 'only invisible ones'],
    ['a name of Braille blanks only', { name: '\u2800\u2800', plan: 'free' }, 'name_characters', 'only invisible ones'],
  ] as const)('refuses %s with a KeyRequestError about the key', async (_label, request, problem, message) => {
    const error = await refusal({ environment: 'production', ...request });
    expect(error.problem).toBe(problem);
    expect(error.message).toContain(message);
    expect(error.message).not.toContain('--');
    expect(await store.listKeys()).toEqual([]);
  });

  it('issues a key whose name is trimmed', async () => {
    const { record } = await issueKey(store, { name: ' Alice ', plan: 'free', environment: 'production' }, new Date());
    expect(record.name).toBe('Alice');
  });
});
