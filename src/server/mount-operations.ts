import type { Request, RequestHandler } from 'express';
import type { OperationId } from '../../generated/operations.js';
import type { OperationInfo } from '../spec/operations.js';
import type { Handler, HandlerContext, HandlerInput, Handlers } from './handler-types.js';
import { localsOf } from './middleware/locals.js';
import { perOperation } from './routing.js';

/** The request parts a handler sees, after validation and coercion. */
function inputOf(req: Request, op: OperationInfo, pathParams: Record<string, string>): HandlerInput<OperationId> {
  const headers: Record<string, string> = {};
  for (const name of op.headerParameters) {
    const value = req.get(name);
    if (value !== undefined) headers[name] = value;
  }
  // Path parameters arrive as strings; the contract's integers are passed on as numbers (they
  // were checked to be decimal integers within range before).
  const path: Record<string, unknown> = { ...pathParams };
  for (const name of op.integerPathParameters) if (typeof path[name] === 'string') path[name] = Number(path[name]);
  return { path, query: req.query, headers, body: req.body } as unknown as HandlerInput<OperationId>;
}

/** Mounts one handler per operation, by operationId, calling it and sending its result. */
export function mountOperations(
  operations: OperationInfo[],
  handlers: Handlers,
  context: Omit<HandlerContext, 'caller' | 'log' | 'idempotency'>,
): RequestHandler {
  return perOperation(operations, (op) => {
    const handler = handlers[op.operationId as OperationId] as Handler<OperationId>;
    if (!handler) throw new Error(`No handler for operation ${op.operationId}`);
    return async (req, res) => {
      const locals = localsOf(res);
      if (!locals.key) throw new Error(`${op.operationId} reached without an authenticated key`);
      const result = await handler(inputOf(req, op, locals.pathParams), {
        ...context,
        caller: { key: locals.key },
        // The request's child logger is made only if the handler logs.
        get log() {
          return locals.log;
        },
        idempotency: locals.idempotency,
      });
      if (result.headers) res.set(result.headers as Record<string, string>);
      res.status(Number(result.status)).json(result.body);
    };
  });
}
