import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSpec } from '../../src/contract/load-spec.js';
import { PET_NAME_MAX_LENGTH } from '../../src/service/http/pet-name.js';
import { hasUnsafeCharacter, isInvisible } from '../../src/shared/visible-text.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

// Names as the contract defines them (PetName): what is refused and how cheaply, and the one
// form a name is stored in. The characters refused one by one are rows of catalogue.test.ts.

let server: TestServer;
let key: string;

beforeAll(async () => {
  server = await startTestServer();
  key = await server.newKey('free');
});
afterAll(() => server?.close());

const post = (body: string) =>
  fetch(`${server.baseUrl}/pets`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body,
  });

interface ErrorBody {
  code: string;
  details: { field: string; message: string }[];
}

describe('POST /pets with a name longer than PetName allows', () => {
  // Without the length guard, the pattern would run on a 16 KiB name after maxLength refused it
  // (the pattern of 1.0.0 took ~0.6 s, quadratic). The pattern is linear (lint proves it) and does not run at all
  // on a name that is too long: the only detail is the length.
  it.each([
    ['an unpaired surrogate', '\\ud800'],
    ['a control character', '\\u0001'],
  ])('refuses a 16 KiB name ending in %s for its length alone', async (_, last) => {
    const body = `{"name":"${'!'.repeat(16 * 1024 - 40)}${last}","categoryId":3}`;
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(16 * 1024);
    const response = await post(body);
    expect(response.status).toBe(400);
    const error = (await response.json()) as ErrorBody;
    expect(error.code).toBe('invalid_request');
    expect(error.details).toEqual([{ field: 'body.name', message: `must be at most ${PET_NAME_MAX_LENGTH} characters` }]);
  });

  it('still reports every fault of a name within its length', async () => {
    const response = await post('{"name":"\\u0001","categoryId":0}');
    const error = (await response.json()) as ErrorBody;
    expect(error.details.map((d) => d.field).sort()).toEqual(['body.categoryId', 'body.name']);
    expect(error.details).toContainEqual({ field: 'body.name', message: 'must hold a visible character and no control characters' });
  });
});

describe('the details of a refused name', () => {
  // Each says what is wrong in words: PetName's pattern is 1.4 KB, and no detail quotes it.
  it.each([
    ['empty', '""', ['must not be empty']],
    ['too long', `"${'a'.repeat(PET_NAME_MAX_LENGTH + 1)}"`, [`must be at most ${PET_NAME_MAX_LENGTH} characters`]],
    ['with a control character', '"Re\\u0007x"', ['must hold a visible character and no control characters']],
    ['not a string', '42', ['must be a string']],
  ])('%s: %j', async (_, name, messages) => {
    const response = await post(`{"name":${name},"categoryId":3}`);
    expect(response.status).toBe(400);
    const error = (await response.json()) as ErrorBody;
    expect(error.details).toEqual(messages.map((message) => ({ field: 'body.name', message })));
    expect(JSON.stringify(error)).not.toMatch(/pattern|\\u00|\^\[/);
  });
});

describe('names in Unicode Normalization Form C', () => {
  // "Café" in NFC and in NFD must not be stored as two different names.
  it('stores "Café" typed with e + U+0301 as the precomposed é, and answers it so', async () => {
    const nfd = 'Cafe\u0301';
    const { data, response } = await server.client(key).POST('/pets', { body: { name: nfd, categoryId: 3 } });
    expect(response.status).toBe(201);
    expect(data!.name).toBe('Caf\u00e9');
    expect((await server.store.getPet(data!.id))!.name).toBe('Caf\u00e9');
    const precomposed = await server.client(key).POST('/pets', { body: { name: 'Caf\u00e9', categoryId: 3 } });
    expect(precomposed.data!.name).toBe(data!.name);
  });

  it('refuses a name that NFC makes longer than the contract allows', async () => {
    // U+0958 is one code point, and two in NFC (a composition exclusion).
    const response = await post(JSON.stringify({ name: '\u0958'.repeat(PET_NAME_MAX_LENGTH), categoryId: 3 }));
    expect(response.status).toBe(400);
    const error = (await response.json()) as ErrorBody;
    expect(error.details).toEqual([{ field: 'body.name', message: expect.stringMatching(/Normalization Form C/) }]);
  });

  it('takes its length limit from the contract', () => {
    const schemas = loadSpec().components!.schemas as Record<string, { maxLength?: number }>;
    expect(schemas.PetName!.maxLength).toBe(PET_NAME_MAX_LENGTH);
  });
});

describe('names of invisible characters only', () => {
  it("PetName's pattern and the service agree on every character up to U+FFFF", () => {
    const schemas = loadSpec().components!.schemas as Record<string, { pattern: string }>;
    const pattern = new RegExp(schemas.PetName!.pattern, 'u');
    const disagree: string[] = [];
    for (let c = 0; c <= 0xffff; c++) {
      const name = String.fromCharCode(c);
      if (pattern.test(name) !== !(hasUnsafeCharacter(name) || isInvisible(name))) disagree.push(`U+${c.toString(16).toUpperCase()}`);
    }
    expect(disagree).toEqual([]);
  });

  it('refuses those above U+FFFF, which the pattern takes, and keeps a name they are part of', async () => {
    const tags = '\u{E0052}\u{E0065}\u{E0078}';
    const refused = await post(JSON.stringify({ name: ` ${tags}\u{1D173}`, categoryId: 3 }));
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as ErrorBody).details).toEqual([{ field: 'body.name', message: expect.stringMatching(/invisible/) }]);
    const kept = await server.client(key).POST('/pets', { body: { name: `Rex${tags}`, categoryId: 3 } });
    expect(kept.response.status).toBe(201);
    expect(kept.data!.name).toBe(`Rex${tags}`);
  });
});
