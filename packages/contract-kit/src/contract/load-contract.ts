import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { ContractError, type OpenApiDocument } from './document.js';
import { inlineMediaTypes } from './openapi-3.2.js';

/**
 * Redocly's bundler, which reads a contract split into files: a dependency of a project whose
 * contract is split (init adds it), not of the kit, so that serving one file installs no Redocly.
 */
export const BUNDLER = { '@redocly/openapi-core': '1.34.24' } as const;

/** Whether any `$ref` in `node` points outside the document (another file, a URL). */
export function hasExternalRefs(node: unknown): boolean {
  if (Array.isArray(node)) return node.some(hasExternalRefs);
  if (!node || typeof node !== 'object') return false;
  for (const [key, value] of Object.entries(node)) {
    if (key === '$ref' && typeof value === 'string' && !value.startsWith('#')) return true;
    if (hasExternalRefs(value)) return true;
  }
  return false;
}

/**
 * Checks that a parsed document is an OpenAPI 3.0, 3.1 or 3.2 contract.
 * @throws ContractError naming `label` and what is wrong
 */
function asContract(value: unknown, label: string): OpenApiDocument {
  if (!value || typeof value !== 'object' || Array.isArray(value))
    throw new ContractError(label, 'is not an OpenAPI document (not a mapping)');
  const doc = value as Partial<OpenApiDocument> & { swagger?: unknown };
  if (doc.swagger !== undefined)
    throw new ContractError(label, `is Swagger ${JSON.stringify(doc.swagger)}; convert it to OpenAPI 3.0, 3.1 or 3.2 first`);
  if (typeof doc.openapi !== 'string' || !/^3\.[012]\.\d+/.test(doc.openapi)) {
    throw new ContractError(label, `has openapi: ${JSON.stringify(doc.openapi)}; OpenAPI 3.0.x, 3.1.x and 3.2.x are supported`);
  }
  if (!doc.info || typeof doc.info.title !== 'string' || typeof doc.info.version !== 'string') {
    throw new ContractError(label, 'has no info with a title and a version');
  }
  if (doc.paths !== undefined && (typeof doc.paths !== 'object' || doc.paths === null))
    throw new ContractError(`${label}#/paths`, 'is not a mapping');
  return inlineMediaTypes(doc as OpenApiDocument);
}

/** YAML's parser, loaded for the first contract that is not JSON: loading it costs 30 to 40 ms of a start. */
function parse(text: string, options: { maxAliasCount: number }): unknown {
  const yaml = createRequire(import.meta.url)('yaml') as typeof import('yaml');
  return yaml.parse(text, options) as unknown;
}

/** A text that looks like JSON: parsed as JSON, or as YAML when it is not (YAML's flow style looks the same). */
function jsonOrYaml(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return parse(text, { maxAliasCount: 1000 });
  }
}

/**
 * Parses the text of a contract (YAML or JSON) that has only local `$ref`s.
 * @throws ContractError naming `label` (and the line, for YAML that does not parse)
 */
export function parseContract(text: string, label: string): OpenApiDocument {
  let value: unknown;
  try {
    // JSON is YAML too, but JSON.parse reads a large JSON contract 40 to 100 times faster.
    value = /^\s*\{/.test(text) ? jsonOrYaml(text) : parse(text, { maxAliasCount: 1000 });
  } catch (cause) {
    throw new ContractError(label, `is not valid YAML or JSON: ${(cause as Error).message}`, { cause });
  }
  return asContract(value, label);
}

/**
 * Reads a contract from a file, YAML or JSON. One that refers to other files (`$ref:
 * ./schemas/book.yaml`) is bundled into one document with Redocly's bundler, its external parts
 * moved into `components`; one with only local `$ref`s is returned as it is parsed.
 * @throws ContractError naming the file (as `label` says it) and what is wrong: unreadable, not a
 * contract, a `$ref` that cannot be resolved
 */
export async function loadContract(path: string, label = path): Promise<OpenApiDocument> {
  const file = resolve(path);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (cause) {
    throw new ContractError(label, `cannot be read: ${(cause as Error).message}`, { cause });
  }
  const doc = parseContract(text, label);
  if (!hasExternalRefs(doc)) return doc;
  const { bundle, createConfig } = await import('@redocly/openapi-core').catch((cause: NodeJS.ErrnoException) => {
    if (cause.code !== 'ERR_MODULE_NOT_FOUND') throw cause;
    const [name, version] = Object.entries(BUNDLER)[0]!;
    throw new ContractError(label, `refers to other files; reading it takes ${name}, not installed here: npm install ${name}@${version}`, {
      cause,
    });
  });
  const bundled = await bundle({ ref: file, config: await createConfig({}), dereference: false });
  const unresolved = bundled.problems.find((p) => p.severity === 'error');
  if (unresolved) {
    const where = unresolved.location[0]?.pointer ?? '';
    throw new ContractError(`${label}${where}`, unresolved.message);
  }
  return asContract(bundled.bundle.parsed, label);
}
