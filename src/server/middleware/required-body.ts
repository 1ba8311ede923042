import type { Request, Router } from 'express';
import { resolveRef, type OpenApiDocument } from '../../spec/load-spec.js';
import type { OperationInfo } from '../../spec/operations.js';
import { InvalidRequestError } from '../errors/invalid-request-error.js';
import { operationRouter } from '../routing.js';

/** Whether a request carries a body: chunked, or a Content-Length above zero (RFC 9112, section 6.3). */
function hasBody(req: Request): boolean {
  if (req.headers['transfer-encoding'] !== undefined) return true;
  const length = req.headers['content-length'];
  return length !== undefined && length !== '0';
}

/**
 * Refuses with 400 (`body`: is required) a request without a body to an operation whose body the
 * contract requires, whatever its Content-Type says: the body is missing, not of another media
 * type (which the validator would answer with 415).
 */
export function requiredBody(doc: OpenApiDocument, operations: OperationInfo[]): Router {
  const router = operationRouter();
  for (const op of operations) {
    const raw = doc.paths[op.path]?.[op.method] as { requestBody?: unknown } | undefined;
    if (!raw?.requestBody || resolveRef<{ required?: boolean }>(doc, raw.requestBody).required !== true) continue;
    router[op.method](op.expressPath, (req: Request, _res, next) => {
      if (!hasBody(req)) throw new InvalidRequestError([{ field: 'body', message: 'is required' }]);
      next();
    });
  }
  return router;
}
