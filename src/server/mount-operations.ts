import { Router, type Request } from 'express';
import type { OperationId } from '../../generated/operations.js';
import type { OperationInfo } from '../spec/operations.js';
import type { Handler, HandlerContext, HandlerInput, Handlers } from './handler-types.js';
import { localsOf } from './middleware/locals.js';

/** The request parts a handler sees, after validation and coercion. */
function inputOf(req: Request, op: OperationInfo): HandlerInput<OperationId> {
  const headers: Record<string, string> = {};
  for (const name of op.headerParameters) {
    const value = req.get(name);
    if (value !== undefined) headers[name] = value;
  }
  return { path: req.params, query: req.query, headers, body: req.body } as unknown as HandlerInput<OperationId>;
}

/** Mounts one route per operation, by operationId, calling its handler and sending its result. */
export function mountOperations(
  operations: OperationInfo[],
  handlers: Handlers,
  context: Omit<HandlerContext, 'caller' | 'log'>,
): Router {
  const router = Router();
  for (const op of operations) {
    const handler = handlers[op.operationId as OperationId] as Handler<OperationId>;
    if (!handler) throw new Error(`No handler for operation ${op.operationId}`);
    router[op.method](op.expressPath, async (req, res) => {
      const locals = localsOf(res);
      if (!locals.key) throw new Error(`${op.operationId} reached without an authenticated key`);
      const result = await handler(inputOf(req, op), { ...context, caller: { key: locals.key }, log: locals.log });
      if (result.headers) res.set(result.headers as Record<string, string>);
      res.status(Number(result.status)).json(result.body);
    });
  }
  return router;
}
