import type { Operation } from '../contract/operations.js';

/**
 * The headers every response of a deprecated operation carries: `Deprecation` (RFC 9745) with
 * the date of `x-deprecated-at` (the Unix epoch without one: any date in the past says "is
 * deprecated"), and, where the operation names them, `Sunset` (RFC 8594) from `x-sunset` and a
 * `Link` to `x-successor` (rel="successor-version", RFC 5829) under the request's base path for
 * a path, as it is for a URL. Null for an operation that is not deprecated.
 */
export function deprecationHeaders(op: Operation, basePath: string): Record<string, string> | null {
  if (!op.deprecated) return null;
  const headers: Record<string, string> = {
    Deprecation: `@${op.deprecatedAt ? Math.floor(Date.parse(op.deprecatedAt) / 1000) : 0}`,
  };
  if (op.sunset) headers.Sunset = new Date(Date.parse(op.sunset)).toUTCString();
  if (op.successor)
    headers.Link = `<${op.successor.startsWith('/') ? `${basePath}${op.successor}` : op.successor}>; rel="successor-version"`;
  return headers;
}
