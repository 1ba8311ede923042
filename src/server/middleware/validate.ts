import type { RequestHandler } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import type { OpenApiDocument } from '../../spec/load-spec.js';

/**
 * express-openapi-validator on the contract: every request (parameters, headers, body, content
 * type, unknown query parameters) and every response body the handlers send. Failures are thrown
 * to the error handler, which answers with the Error body.
 */
export function validate(doc: OpenApiDocument): RequestHandler[] {
  return OpenApiValidator.middleware({
    apiSpec: structuredClone(doc) as never,
    validateApiSpec: true,
    validateRequests: { allowUnknownQueryParameters: false, coerceTypes: false, allErrors: true },
    validateResponses: { removeAdditional: false, allErrors: true },
    validateSecurity: false,
    ignoreUndocumented: false,
    validateFormats: true,
  }) as RequestHandler[];
}
