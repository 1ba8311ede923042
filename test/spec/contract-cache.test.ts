// The parsed copy of openapi.yaml that `npm run build` writes (src/contract/contract-cache.ts) must
// never be read for a contract it was not made from.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cachedContract, parseYaml, writeContractCache } from '../../src/contract/contract-cache.js';
import { SPEC_PATH } from '../../src/contract/load-spec.js';

const dir = mkdtempSync(join(tmpdir(), 'animal-store-contract-cache-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the parsed contract cache', () => {
  const text = readFileSync(SPEC_PATH, 'utf8');

  it('gives back the document the YAML parses to, for the same text', () => {
    const cachePath = join(dir, 'same.json');
    writeContractCache(SPEC_PATH, cachePath);
    expect(cachedContract(text, cachePath)).toEqual(parseYaml(text));
  });

  it('gives nothing for a contract edited since (one character changed)', () => {
    const cachePath = join(dir, 'edited.json');
    writeContractCache(SPEC_PATH, cachePath);
    expect(cachedContract(text.replace('Animal Store', 'Animal  Store'), cachePath)).toBeUndefined();
  });

  it('gives nothing when there is no cache or it is not JSON', () => {
    expect(cachedContract(text, join(dir, 'missing.json'))).toBeUndefined();
    const broken = join(dir, 'broken.json');
    writeFileSync(broken, '{"sourceSha256": ');
    expect(cachedContract(text, broken)).toBeUndefined();
  });
});
