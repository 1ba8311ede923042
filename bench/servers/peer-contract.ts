/**
 * The Animal Store's contract as express-openapi-validator reads it. openapi.yaml is OpenAPI 3.2,
 * which its 5.6 does not know: it answers every request 500 ("OpenAPI v3.0 or v3.1 specification
 * version is required"), and refuses `itemSchema` in a 3.1 document. It is given the contract as
 * 3.1 without what only 3.2 has (the feed's `itemSchema`), as a team on it would have to. The
 * operation the bench asks (listPets) uses nothing of 3.2.
 */
import { loadSpec, type OpenApiDocument } from '../../src/contract/load-spec.js';

export function peerContract(): OpenApiDocument {
  const text = JSON.stringify({ ...loadSpec(), openapi: '3.1.1' }, (key, value: unknown) =>
    key === 'itemSchema' || key === 'itemEncoding' ? undefined : value,
  );
  return JSON.parse(text) as OpenApiDocument;
}
