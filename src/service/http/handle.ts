import type { Request, RequestHandler } from 'express';
import type { OperationInfo } from '../../contract/operations.js';
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { HeldClaim, Store } from '../store/store.js';
import type { Caller, Handler, HandlerContext, HandlerInput, OperationId } from './handler-types.js';
import { localsOf, type RequestLocals } from './middleware/locals.js';

/** The request parts a handler sees, after validation and coercion. */
function inputOf(req: Request, op: OperationInfo): HandlerInput<OperationId> {
  const headers: Record<string, string> = {};
  for (const name of op.headerParameters) {
    const value = req.get(name);
    if (value !== undefined) headers[name] = value;
  }
  // The contract's integer parameters are passed on as numbers (they were checked to be decimal
  // integers within range before). Express 5 parses req.query anew on each read, so the
  // validator's coercion of it does not last: the handler's copy is coerced here.
  const path: Record<string, unknown> = { ...req.params };
  for (const name of op.integerPathParameters) if (typeof path[name] === 'string') path[name] = Number(path[name]);
  const query = req.query as Record<string, unknown>;
  for (const name of op.integerQueryParameters) if (typeof query[name] === 'string') query[name] = Number(query[name]);
  return { path, query, headers, body: req.body as unknown } as unknown as HandlerInput<OperationId>;
}

/** What every request's handler context shares. */
type SharedContext = Omit<HandlerContext, 'caller' | 'log' | 'idempotency'>;

/**
 * The context of one request's handler. A class, so that every request's context has the same
 * shape and its `log` getter lives on the prototype: the request's child logger is made only if
 * the handler logs.
 */
class RequestHandlerContext implements HandlerContext {
  readonly store: Store;
  readonly clock: Clock;
  readonly basePath: string;
  readonly caller: Caller;
  readonly idempotency: HeldClaim | undefined;
  readonly #locals: RequestLocals;

  constructor(shared: SharedContext, locals: RequestLocals, caller: Caller) {
    this.store = shared.store;
    this.clock = shared.clock;
    this.basePath = shared.basePath;
    this.caller = caller;
    this.idempotency = locals.idempotency;
    this.#locals = locals;
  }

  get log(): Logger {
    return this.#locals.log;
  }
}

/** The last step of an operation's route: calls its handler and sends what it returns. */
export function handle(op: OperationInfo, handler: Handler<OperationId> | undefined, context: SharedContext): RequestHandler {
  if (!handler) throw new Error(`No handler for operation ${op.operationId}`);
  return async (req, res) => {
    const locals = localsOf(res);
    if (!locals.key) throw new Error(`${op.operationId} reached without an authenticated key`);
    const result = await handler(inputOf(req, op), new RequestHandlerContext(context, locals, { key: locals.key }));
    if (result.headers) res.set(result.headers as Record<string, string>);
    // A response the contract gives no content (a 204) is written without a body.
    if (result.body === undefined) res.status(Number(result.status)).end();
    else res.status(Number(result.status)).json(result.body);
  };
}
