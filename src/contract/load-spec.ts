import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseContract, type OpenApiDocument as KitDocument } from 'contract-kit';
import { PACKAGE_ROOT } from '../shared/package-root.js';
import { cachedText, cachePathOf } from './contract-cache.js';

export { resolveRef } from 'contract-kit';

/** Absolute path of the contract, `openapi.yaml` at the root of the package. */
export const SPEC_PATH = join(PACKAGE_ROOT, 'openapi.yaml');

/** A contract as contract-kit reads it, with its paths (the service serves none without). */
export type OpenApiDocument = KitDocument & { paths: NonNullable<KitDocument['paths']> };

/**
 * Reads a contract with contract-kit's reader (from the JSON copy `npm run build` writes for one
 * of this package's, while it was made from the same text); throws a ContractError naming the
 * path (or `label`, for text from elsewhere such as a git revision) and what is wrong.
 */
export function loadSpec(path: string = SPEC_PATH, label: string = path): OpenApiDocument {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (cause) {
    throw new Error(`Cannot read the OpenAPI document at ${label}`, { cause });
  }
  const doc = parseContract(cachedText(text, cachePathOf(path)) ?? text, label);
  if (!('paths' in doc)) throw new Error(`${label} is not an OpenAPI document the service can serve (no "paths" key)`);
  return doc as OpenApiDocument;
}
