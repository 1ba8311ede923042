import type { Request, Response } from 'express';
import { requestBasePath } from 'contract-kit';
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { PetFeed } from '../feed/pet-feed.js';
import type { HeldClaim, Store } from '../store/store.js';
import type { Context } from './context.js';
import { localsOf, type RequestLocals } from './middleware/locals.js';

/** What every request's handler context shares. */
type SharedContext = Pick<Context, 'store' | 'feed' | 'clock'>;

/**
 * The context of one request's handler (contract-kit adds the operation and the caller). A
 * class, so that every request's context has the same shape and its `log` getter lives on the
 * prototype: the request's child logger is made only if the handler logs.
 */
class RequestHandlerContext implements Context {
  readonly store: Store;
  readonly feed: PetFeed;
  readonly clock: Clock;
  readonly basePath: string;
  readonly idempotency: HeldClaim | undefined;
  readonly #locals: RequestLocals;

  constructor(shared: SharedContext, basePath: string, locals: RequestLocals) {
    this.store = shared.store;
    this.feed = shared.feed;
    this.clock = shared.clock;
    this.basePath = basePath;
    this.idempotency = locals.idempotency;
    this.#locals = locals;
  }

  get log(): Logger {
    return this.#locals.log;
  }
}

/** contract-kit's `context`: each handler's, from what every request shares and what its middleware learned. */
export function handlerContext(shared: SharedContext) {
  return (req: Request, res: Response): Context => new RequestHandlerContext(shared, requestBasePath(req) ?? '', localsOf(res));
}
