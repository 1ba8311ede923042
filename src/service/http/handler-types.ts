import type { Logger } from 'pino';
import type { Handlers as KitHandlers, ResultOf as KitResultOf, TypedHandler } from 'contract-kit';
import type { Operations } from '../../../generated/operations.js';
import type { Clock } from '../clock.js';
import type { ApiKeyRecord, HeldClaim, Store } from '../store/store.js';

/** The operations of the contract by their handlers' names (their operationIds), as `npm run generate` writes them. */
export type OperationId = keyof Operations;

/**
 * What a status of a responses map (openapi-typescript's `responses` of an operation) lets a
 * handler answer: that status, with its body and headers. Anything else does not compile.
 */
export type ResultOf<Responses> = KitResultOf<{ responses: Responses }>;

/** What the Animal Store adds to a handler's context; the kit adds the operation and the caller (the API key). */
export interface HandlerContext {
  store: Store;
  clock: Clock;
  /** The version segment the API is served under (`/v1`), for links. */
  basePath: string;
  log: Logger;
  /** The Idempotency-Key the request claimed: the handler's write records its response under it. */
  idempotency?: HeldClaim;
}

/**
 * The handler of one operation, typed from the contract (contract-kit's TypedHandler): its
 * parameters and body, and only the statuses, bodies and headers its operation declares.
 */
export type Handler<K extends OperationId> = TypedHandler<Operations[K], HandlerContext, ApiKeyRecord>;

/** One handler per operation of the contract: a missing one does not compile. */
export type Handlers = KitHandlers<Operations, HandlerContext, ApiKeyRecord>;
