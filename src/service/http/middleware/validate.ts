import type { RequestHandler } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import { lengthBeforePattern } from '../../../contract/length-before-pattern.js';
import type { OpenApiDocument } from '../../../contract/load-spec.js';

/** The options express-openapi-validator runs with on the contract. */
const VALIDATOR_OPTIONS = {
  validateRequests: { allowUnknownQueryParameters: false, coerceTypes: false, allErrors: true },
  validateResponses: { removeAdditional: false, allErrors: true },
  // Keys are checked by authenticate.ts, before the rate limit.
  validateSecurity: false,
  ignoreUndocumented: false,
  validateFormats: true,
} as const;

/**
 * The contract as the validator reads it: no `pattern` runs on a string its `maxLength` already
 * refused (length-before-pattern.ts), and every GET operation also answers HEAD, as Express
 * routes HEAD to GET (RFC 9110, section 9.3.2).
 */
function validatorDocument(doc: OpenApiDocument): OpenApiDocument {
  const copy = lengthBeforePattern(doc);
  for (const item of Object.values(copy.paths)) {
    if (!item.get || item.head) continue;
    // Without the GET's operationId: an operationId names one operation.
    const { operationId: _, ...head } = item.get as Record<string, unknown>;
    item.head = head;
  }
  return copy;
}

/**
 * express-openapi-validator on the contract, through its public middleware: every request
 * (parameters, headers, body, content type, unknown query parameters) and every response body a
 * handler sends. Failures go to the error handler, which answers with the Error body.
 * `checkSpec` checks the contract against the OpenAPI schema first (the validator's
 * `validateApiSpec`); production skips it, since `npm run check` checked the contract it ships.
 */
export function validate(doc: OpenApiDocument, { checkSpec = true }: { checkSpec?: boolean } = {}): RequestHandler[] {
  return OpenApiValidator.middleware({
    apiSpec: validatorDocument(doc) as never,
    ...structuredClone(VALIDATOR_OPTIONS),
    validateApiSpec: checkSpec,
  });
}
