// The parsed copy of openapi.yaml that `npm run build` writes (src/contract/contract-cache.ts) must
// never be read for a contract it was not made from.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseContract } from 'contract-kit';
import { afterAll, describe, expect, it } from 'vitest';
import { cachedText, writeContractCache } from '../../src/contract/contract-cache.js';
import { SPEC_PATH } from '../../src/contract/load-spec.js';

const dir = mkdtempSync(join(tmpdir(), 'animal-store-contract-cache-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the parsed contract cache', () => {
  const text = readFileSync(SPEC_PATH, 'utf8');

  it('gives back, as JSON, the document the YAML parses to, for the same text', () => {
    const cachePath = join(dir, 'same.json');
    writeContractCache(SPEC_PATH, cachePath);
    expect(JSON.parse(cachedText(text, cachePath)!)).toEqual(parseContract(text, 'openapi.yaml'));
  });

  it('gives nothing for a contract edited since (one character changed)', () => {
    const cachePath = join(dir, 'edited.json');
    writeContractCache(SPEC_PATH, cachePath);
    expect(cachedText(text.replace('Animal Store', 'Animal  Store'), cachePath)).toBeUndefined();
  });

  it('gives nothing when there is no cache, or no hash beside it', () => {
    expect(cachedText(text, join(dir, 'missing.json'))).toBeUndefined();
    const alone = join(dir, 'alone.json');
    writeFileSync(alone, '{}');
    expect(cachedText(text, alone)).toBeUndefined();
  });
});
