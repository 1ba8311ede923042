import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { PetFeed } from '../feed/pet-feed.js';
import type { HeldClaim, Store } from '../store/store.js';

/**
 * What the Animal Store adds to a handler's context; the kit adds the operation and the caller (the
 * API key). `contract-kit generate` imports it by this name, beside the handlers folder.
 */
export interface Context {
  store: Store;
  /** The animals added, as each follower reads them (GET /pets/feed). */
  feed: PetFeed;
  clock: Clock;
  /** The version segment the API is served under (`/v1`), for links. */
  basePath: string;
  log: Logger;
  /** The Idempotency-Key the request claimed: the handler's write records its response under it. */
  idempotency?: HeldClaim;
}
