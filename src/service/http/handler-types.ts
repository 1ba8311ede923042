import type { Handlers as KitHandlers, ResultOf as KitResultOf, TypedHandler } from 'contract-kit';
import type { Operations } from '../../../generated/operations.js';
import type { Context } from './context.js';

/** The operations of the contract by their handlers' names (their operationIds), as `npm run generate` writes them. */
export type OperationId = keyof Operations;

/**
 * What a status of a responses map (openapi-typescript's `responses` of an operation) lets a
 * handler answer: that status, with its body and headers. Anything else does not compile.
 */
export type ResultOf<Responses> = KitResultOf<{ responses: Responses }>;

/**
 * The handler of one operation, typed from the contract: `TypedHandler<Operations[K], Context>`,
 * as the handler files and the stubs of `npm run generate` write it.
 */
export type Handler<K extends OperationId> = TypedHandler<Operations[K], Context>;

/** One handler per operation of the contract (generated/handlers.ts checks its map against it): a missing one does not compile. */
export type Handlers = KitHandlers<Operations, Context>;
