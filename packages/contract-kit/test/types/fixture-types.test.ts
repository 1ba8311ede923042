import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { railTypes, RAIL_TYPES } from './fixture-types.js';

describe('the fixture types the type-level tests are checked against', () => {
  it('are what renderTypes writes (npx tsx packages/contract-kit/test/types/fixture-types.ts writes them again)', async () => {
    for (const [name, text] of Object.entries(await railTypes())) expect(readFileSync(`${RAIL_TYPES}${name}`, 'utf8'), name).toBe(text);
  });
});
