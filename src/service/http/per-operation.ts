import type { RequestHandler } from 'express';
import type { OperationInfo } from '../../contract/operations.js';
import { localsOf } from './middleware/locals.js';

/**
 * One middleware per operation, built once: a request runs the one of the operation it was
 * matched to (see middleware/match-operation.ts), and passes when that operation has none. This
 * replaces an Express Router per concern, which would match every path again.
 */
export function perOperation(operations: OperationInfo[], build: (op: OperationInfo) => RequestHandler | undefined): RequestHandler {
  const handlers = new Map<OperationInfo, RequestHandler>();
  for (const op of operations) {
    const handler = build(op);
    if (handler) handlers.set(op, handler);
  }
  return (req, res, next) => {
    const operation = localsOf(res).operation;
    const handler = operation && handlers.get(operation);
    return handler ? handler(req, res, next) : next();
  };
}
