import type { OpenApiDocument, SecurityRequirement } from './document.js';

/** A header name as HTTP writes one (RFC 9110's token). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * Why no request can meet an operation's security: each alternative names a scheme the contract
 * lacks, or an API key in a header no client can send (`API Key`).
 */
export function unusableSecurity(doc: OpenApiDocument, security: SecurityRequirement[]): string | null {
  if (security.length === 0) return null;
  const schemes = (doc.components?.securitySchemes ?? {}) as Record<string, { type?: unknown; in?: unknown; name?: unknown } | undefined>;
  const why = (name: string) => {
    const scheme = schemes[name];
    if (!scheme) return `its security names the scheme ${name}, which components.securitySchemes lacks`;
    if (scheme.type === 'apiKey' && scheme.in === 'header' && typeof scheme.name === 'string' && !HEADER_NAME.test(scheme.name))
      return `its security scheme ${name} asks for the header ${JSON.stringify(scheme.name)}, which is no header name a request can carry`;
    return null;
  };
  const broken = security.map(
    (requirement) =>
      Object.keys(requirement)
        .map(why)
        .find((reason) => reason !== null) ?? null,
  );
  return broken.every((reason) => reason !== null) ? broken[0]! : null;
}
