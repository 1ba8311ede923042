import { hash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative } from 'node:path';
import { parseContract } from 'contract-kit';
import { PACKAGE_ROOT } from '../shared/package-root.js';

/**
 * The contracts the service serves (openapi.yaml, and the released contracts of earlier majors)
 * parsed once, by `npm run build`, into JSON beside the SHA-256 of the text each was parsed from:
 * contract-kit reads JSON without loading its YAML parser (docs/architecture.md says how much
 * sooner). A copy is read only while its hash matches the contract's text, never stale.
 */
const CACHE_DIR = join(PACKAGE_ROOT, 'build');

/**
 * Where the parsed copy of a contract of this package is kept: build/openapi.json for
 * openapi.yaml, build/<its path>.json for another (build/contracts/released/1.x.json); undefined
 * for a file outside the package. Its hash is in the same path with `.sha256` added.
 */
export function cachePathOf(specPath: string): string | undefined {
  const inPackage = relative(PACKAGE_ROOT, specPath);
  if (inPackage.startsWith('..') || isAbsolute(inPackage)) return undefined;
  return join(CACHE_DIR, inPackage.replace(/\.ya?ml$/, '') + '.json');
}

/** The parsed copy written of exactly `text`, as JSON text, or undefined (none, another text's, unreadable). */
export function cachedText(text: string, cachePath: string | undefined): string | undefined {
  if (cachePath === undefined) return undefined;
  try {
    if (readFileSync(`${cachePath}.sha256`, 'utf8') !== hash('sha256', text)) return undefined;
    return readFileSync(cachePath, 'utf8');
  } catch {
    return undefined;
  }
}

/** Parses the contract at `specPath` with contract-kit and writes its JSON copy and hash; returns where. */
export function writeContractCache(specPath: string, cachePath: string = cachePathOf(specPath)!): string {
  const text = readFileSync(specPath, 'utf8');
  const doc = parseContract(text, specPath);
  mkdirSync(dirname(cachePath), { recursive: true });
  // The hash last, so that a copy half written is never taken for the text's.
  rmSync(`${cachePath}.sha256`, { force: true });
  writeFileSync(cachePath, JSON.stringify(doc));
  writeFileSync(`${cachePath}.sha256`, hash('sha256', text));
  return cachePath;
}
