import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../shared/package-root.js';
import { cachedContract, cachePathOf, parseYaml } from './contract-cache.js';

/** Absolute path of the contract, `openapi.yaml` at the root of the package. */
export const SPEC_PATH = join(PACKAGE_ROOT, 'openapi.yaml');

/** The parts of an OpenAPI 3.1 document this package reads; everything else is kept as is. */
export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string; [key: string]: unknown };
  servers?: { url: string; description?: string }[];
  paths: Record<string, Record<string, unknown>>;
  components?: Record<string, Record<string, unknown>>;
  [key: string]: unknown;
}

/**
 * Reads and parses a contract (from the cache `npm run build` writes for the package's own, while
 * it matches the text: see contract-cache.ts); throws with the path (or `label`, when the text came from
 * elsewhere, such as a git revision) and, for malformed YAML, the line in the message.
 */
export function loadSpec(path: string = SPEC_PATH, label: string = path): OpenApiDocument {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (cause) {
    throw new Error(`Cannot read the OpenAPI document at ${label}`, { cause });
  }
  let doc: unknown = cachedContract(text, cachePathOf(path));
  try {
    doc ??= parseYaml(text);
  } catch (cause) {
    throw new Error(`${label} is not valid YAML: ${(cause as Error).message}`, { cause });
  }
  if (!doc || typeof doc !== 'object' || !('openapi' in doc) || !('paths' in doc)) {
    throw new Error(`${label} is not an OpenAPI document (no "openapi" or "paths" key)`);
  }
  return doc as OpenApiDocument;
}

/**
 * Follows a local `$ref` ("#/components/...") to the object it names; returns other values as
 * they are.
 */
export function resolveRef<T = unknown>(doc: OpenApiDocument, value: unknown): T {
  let current = value;
  const seen = new Set<string>();
  while (current && typeof current === 'object' && '$ref' in current) {
    const ref = current.$ref;
    if (typeof ref !== 'string' || !ref.startsWith('#/')) {
      throw new Error(`Only local $refs are supported, got ${String(ref)}`);
    }
    if (seen.has(ref)) throw new Error(`Circular $ref ${ref}`);
    seen.add(ref);
    current = ref
      .slice(2)
      .split('/')
      .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], doc);
    if (current === undefined) throw new Error(`$ref ${ref} points at nothing`);
  }
  return current as T;
}
