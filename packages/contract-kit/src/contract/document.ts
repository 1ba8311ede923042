/** The parts of an OpenAPI 3.0, 3.1 or 3.2 document the kit reads; everything else is kept as it is. */
export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string; [key: string]: unknown };
  servers?: ServerObject[];
  paths?: Record<string, PathItem>;
  webhooks?: Record<string, PathItem>;
  components?: Record<string, Record<string, unknown> | undefined>;
  security?: SecurityRequirement[];
  [key: string]: unknown;
}

/** Whether the contract's schemas are JSON Schema 2020-12 (OpenAPI 3.1 and 3.2), not OpenAPI 3.0's dialect. */
export const usesJsonSchema2020 = (doc: Pick<OpenApiDocument, 'openapi'>) => !doc.openapi.startsWith('3.0');

/** Whether the contract is OpenAPI 3.2, whose additions the tools the kit builds on do not know (see openapi-3.2.ts). */
export const isOpenApi32 = (doc: Pick<OpenApiDocument, 'openapi'>) => doc.openapi.startsWith('3.2');

/**
 * The `openapi` version the kit gives the tools that know 3.0 and 3.1 only (the validator, Prism)
 * for a document of `openapi`: 3.1.1 for a 3.2 contract, whose schemas are the same dialect, and
 * whose 3.2-only parts the kit does not hand them.
 */
export const toolOpenApiVersion = (openapi: string) => (isOpenApi32({ openapi }) ? '3.1.1' : openapi);

/**
 * A parameter's `style`, OpenAPI's default where it names none (form for query and cookie, simple
 * for path and header), and 3.2's `cookie` style read as `form`, which it is but for
 * percent-encoding and which the validator does not know.
 */
export function parameterStyle(p: { in?: unknown; style?: unknown }): string {
  const written = typeof p.style === 'string' ? p.style : p.in === 'query' || p.in === 'cookie' ? 'form' : 'simple';
  return written === 'cookie' ? 'form' : written;
}

/** A server of the contract: its URL may hold `{variables}`, each with a default. */
export interface ServerObject {
  url: string;
  description?: string;
  variables?: Record<string, { default: string; enum?: string[]; description?: string }>;
}

/** A path item: its operations by method, and the parameters they share. */
type PathItem = Record<string, unknown> & { parameters?: unknown[]; $ref?: string };

/** Scheme names, each with the scopes (OAuth 2, OpenID Connect) or roles (any other scheme, in OpenAPI 3.1) it needs. */
export type SecurityRequirement = Record<string, string[]>;

/** A contract the kit cannot serve, with the place in it that says why. */
export class ContractError extends Error {
  constructor(
    /** The contract's file, and the JSON pointer or the words that locate the problem in it. */
    readonly location: string,
    problem: string,
    options?: ErrorOptions,
  ) {
    super(`${location}: ${problem}`, options);
    this.name = 'ContractError';
  }
}

/** `~1` and `~0` of a JSON pointer token, undone (RFC 6901). */
export const unescapePointer = (token: string) => token.replace(/~1/g, '/').replace(/~0/g, '~');

/** A token of a pointer in a `$ref`, a URI fragment: percent-decoded (`%7BtenantID%7D`), then unescaped. */
function refToken(token: string): string {
  if (!token.includes('%')) return unescapePointer(token);
  try {
    return unescapePointer(decodeURIComponent(token));
  } catch {
    return unescapePointer(token);
  }
}
/** A name escaped as a JSON pointer token (RFC 6901). */
export const escapePointer = (token: string) => token.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * Follows local `$ref`s (`#/components/...`) to the object they name; other values are returned
 * as they are. A contract read with {@link loadContract} has only local ones.
 * @throws ContractError for a `$ref` that points at nothing or goes round in a circle
 */
export function resolveRef<T = unknown>(doc: OpenApiDocument, value: unknown, where = '#'): T {
  let current = value;
  const seen = new Set<string>();
  while (current && typeof current === 'object' && '$ref' in current) {
    const ref = current.$ref;
    if (typeof ref !== 'string' || !ref.startsWith('#/')) throw new ContractError(where, `cannot resolve the $ref ${String(ref)}`);
    if (seen.has(ref)) throw new ContractError(where, `the $ref ${ref} goes round in a circle`);
    seen.add(ref);
    current = ref
      .slice(2)
      .split('/')
      .map(refToken)
      .reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], doc);
    if (current === undefined) throw new ContractError(where, `the $ref ${ref} points at nothing`);
  }
  return current as T;
}
