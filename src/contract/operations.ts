import { resolveRef, type OpenApiDocument } from './load-spec.js';

/** HTTP methods an OpenAPI path item may hold, in the order OpenAPI lists them. */
export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** One row of the operation table: what the server mounts and the tests call. */
export interface OperationInfo {
  operationId: string;
  method: (typeof HTTP_METHODS)[number];
  /** The path as the contract writes it, relative to the server URL (`/pets/{petId}`). */
  path: string;
  summary: string;
  deprecated: boolean;
  /** When a deprecated operation was deprecated (`x-deprecated-at`, ISO 8601), or null. */
  deprecatedAt: string | null;
  /** Removal date of a deprecated operation (`x-sunset`, ISO 8601), or null. */
  sunset: string | null;
  /** Path that replaces a deprecated operation (`x-successor`), or null. */
  successor: string | null;
  /** Names of the query parameters the operation declares (`limit`, `cursor`, `status`). */
  queryParameters: string[];
  /** Names of the header parameters the operation declares (`Idempotency-Key`). */
  headerParameters: string[];
  /** Names of the path parameters whose schema is an integer (`petId`). */
  integerPathParameters: string[];
  /** Names of the query parameters whose schema is an integer (`limit`). */
  integerQueryParameters: string[];
  /** Whether the operation takes a request body. */
  hasRequestBody: boolean;
  /** Whether its request body is required. */
  requiresBody: boolean;
}

/**
 * Lists the operations of the contract in document order.
 * Throws when an operation has no operationId or one is used twice, since everything is wired
 * by operationId.
 */
export function listOperations(doc: OpenApiDocument): OperationInfo[] {
  const operations: OperationInfo[] = [];
  const seen = new Set<string>();
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of HTTP_METHODS) {
      const op = item[method] as Record<string, unknown> | undefined;
      if (!op) continue;
      const operationId = op.operationId;
      if (typeof operationId !== 'string' || operationId === '') {
        throw new Error(`${method.toUpperCase()} ${path} has no operationId`);
      }
      if (seen.has(operationId)) throw new Error(`operationId ${operationId} is used more than once`);
      seen.add(operationId);
      const parameters = [...((item.parameters as unknown[]) ?? []), ...((op.parameters as unknown[]) ?? [])].map((p) =>
        resolveRef<{ name: string; in: string; schema?: unknown }>(doc, p),
      );
      const isInteger = (p: { schema?: unknown }) => resolveRef<{ type?: unknown } | undefined>(doc, p.schema)?.type === 'integer';
      operations.push({
        operationId,
        method,
        path,
        summary: typeof op.summary === 'string' ? op.summary : '',
        deprecated: op.deprecated === true,
        deprecatedAt: typeof op['x-deprecated-at'] === 'string' ? op['x-deprecated-at'] : null,
        sunset: typeof op['x-sunset'] === 'string' ? op['x-sunset'] : null,
        successor: typeof op['x-successor'] === 'string' ? op['x-successor'] : null,
        queryParameters: parameters.filter((p) => p.in === 'query').map((p) => p.name),
        headerParameters: parameters.filter((p) => p.in === 'header').map((p) => p.name),
        integerPathParameters: parameters.filter((p) => p.in === 'path' && isInteger(p)).map((p) => p.name),
        integerQueryParameters: parameters.filter((p) => p.in === 'query' && isInteger(p)).map((p) => p.name),
        hasRequestBody: op.requestBody !== undefined,
        requiresBody: resolveRef<{ required?: boolean } | undefined>(doc, op.requestBody)?.required === true,
      });
    }
  }
  return operations;
}

/**
 * The headers every response of a deprecated operation carries, from the operation's own
 * `x-deprecated-at`, `x-sunset` and `x-successor`; null for an operation that is not deprecated
 * (or lacks one of them, which lint refuses). The server and the mock both send these.
 * @see RFC 9745 (Deprecation), RFC 8594 (Sunset), RFC 8288 (Link)
 */
export function deprecationHeaders(op: OperationInfo, basePath: string): { Deprecation: string; Sunset: string; Link: string } | null {
  if (!op.deprecated || !op.sunset || !op.deprecatedAt || !op.successor) return null;
  return {
    Deprecation: `@${Math.floor(Date.parse(op.deprecatedAt) / 1000)}`,
    Sunset: new Date(Date.parse(op.sunset)).toUTCString(),
    Link: `<${basePath}${op.successor}>; rel="successor-version"`,
  };
}

/** The version segment every path sits under, from the first server URL (`/v1`). */
export function basePathOf(doc: OpenApiDocument): string {
  const url = doc.servers?.[0]?.url;
  if (!url) return '';
  return new URL(url, 'http://placeholder').pathname.replace(/\/$/, '');
}
