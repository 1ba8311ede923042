import { hash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, isAbsolute, join, relative } from 'node:path';
import { PACKAGE_ROOT } from '../shared/package-root.js';

/**
 * The contracts the service serves (openapi.yaml, and the released contracts of earlier majors)
 * parsed once, by `npm run build`, and kept as JSON with the SHA-256 of the text each was parsed
 * from. Parsing the YAML takes about a tenth of the service's start-up; JSON.parse of the same
 * document well under a millisecond, and the release has no YAML parser at all. A copy is used
 * only while its hash matches the contract's text as it is now, so an edited contract is never
 * read stale: it is parsed again.
 */
const CACHE_DIR = join(PACKAGE_ROOT, 'build');

/**
 * Where the parsed copy of a contract of this package is kept: build/openapi.json for
 * openapi.yaml, build/<its path>.json for another (build/contracts/released/1.x.json); undefined
 * for a file outside the package.
 */
export function cachePathOf(specPath: string): string | undefined {
  const inPackage = relative(PACKAGE_ROOT, specPath);
  if (inPackage.startsWith('..') || isAbsolute(inPackage)) return undefined;
  return join(CACHE_DIR, inPackage.replace(/\.ya?ml$/, '') + '.json');
}

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
export function cachedContract(text: string, cachePath: string | undefined): unknown {
  if (cachePath === undefined) return undefined;
  let cache: CacheFile;
  try {
    cache = JSON.parse(readFileSync(cachePath, 'utf8')) as CacheFile;
  } catch {
    return undefined;
  }
  return cache && cache.sourceSha256 === sha256(text) ? cache.document : undefined;
}

/** Parses the contract at `specPath` and writes the cache for its text; returns where. */
export function writeContractCache(specPath: string, cachePath: string = cachePathOf(specPath)!): string {
  const text = readFileSync(specPath, 'utf8');
  const cache: CacheFile = { sourceSha256: sha256(text), document: parseYaml(text) };
  mkdirSync(dirname(cachePath), { recursive: true });
  writeFileSync(cachePath, JSON.stringify(cache));
  return cachePath;
}
