import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fixtureTypes } from './fixture-types.js';

describe('the fixture types the type-level tests are checked against', () => {
  it('are what renderTypes writes (npx tsx packages/contract-kit/test/types/fixture-types.ts writes them again)', async () => {
    for (const [path, text] of Object.entries(await fixtureTypes())) expect(readFileSync(path, 'utf8'), path).toBe(text);
  });
});
