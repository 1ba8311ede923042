import { hash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PACKAGE_ROOT } from '../shared/package-root.js';

/**
 * openapi.yaml parsed once, by `npm run build`, and kept as JSON with the SHA-256 of the text it
 * was parsed from. Parsing the YAML takes about a tenth of the service's start-up; JSON.parse of
 * the same document well under a millisecond. The copy is used only while its hash matches the
 * contract's text as it is now, so an edited contract is never read stale: it is parsed again.
 */
const CONTRACT_CACHE_PATH = join(PACKAGE_ROOT, 'build', 'openapi.json');

interface CacheFile {
  sourceSha256: string;
  document: unknown;
}

const sha256 = (text: string) => hash('sha256', text);

/** Parses YAML text; the yaml package is loaded only when a contract has to be parsed. */
export function parseYaml(text: string): unknown {
  const { parse } = createRequire(import.meta.url)('yaml') as typeof import('yaml');
  return parse(text) as unknown;
}

/** The document cached for exactly `text`, or undefined (no cache, another text, unreadable). */
export function cachedContract(text: string, cachePath: string = CONTRACT_CACHE_PATH): unknown {
  let cache: CacheFile;
  try {
    cache = JSON.parse(readFileSync(cachePath, 'utf8')) as CacheFile;
  } catch {
    return undefined;
  }
  return cache && cache.sourceSha256 === sha256(text) ? cache.document : undefined;
}

/** Parses the contract at `specPath` and writes the cache for its text. */
export function writeContractCache(specPath: string, cachePath: string = CONTRACT_CACHE_PATH): void {
  const text = readFileSync(specPath, 'utf8');
  const cache: CacheFile = { sourceSha256: sha256(text), document: parseYaml(text) };
  mkdirSync(dirname(cachePath), { recursive: true });
  writeFileSync(cachePath, JSON.stringify(cache));
}

// `node dist/src/contract/contract-cache.js --write`: what `npm run build` runs after compiling.
if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv.includes('--write')) {
  writeContractCache(join(PACKAGE_ROOT, 'openapi.yaml'));
  process.stdout.write(`Parsed openapi.yaml into ${CONTRACT_CACHE_PATH}\n`);
}
