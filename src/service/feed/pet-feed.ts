import type { Pet, Store } from '../store/store.js';

/** What the feed reads of the store: the animals after an id, and the last id given. */
export type FeedStore = Pick<Store, 'listPets' | 'lastPetId'>;

/** How the feed follows the store. */
export interface PetFeedOptions {
  /** How often a follower asks the store for animals another instance added. @default 1000 */
  pollMs?: number;
  /**
   * How long a follower waits at a missing id before it goes past it. An id is given when an
   * animal's INSERT begins and seen when its transaction commits; two instances' transactions may
   * commit out of order, and one rolled back leaves its id unused for good. Past this, the id is
   * taken for unused: longer than an INSERT's transaction may last (the store's query timeout,
   * twice: the INSERT and the Idempotency-Key's record). @default 11000
   */
  gapWaitMs?: number;
  /** Animals read at a time. @default 100 */
  pageSize?: number;
}

/** Waits `ms`, or less if `wake` is called or `signal` aborts first. */
function pause(ms: number, signal: AbortSignal, waiting: Set<() => void>): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      waiting.delete(done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    waiting.add(done);
  });
}

/**
 * The animals added to the store, in the order of their ids, as each follower reads them: from
 * the store itself (every instance's additions, on SQLite and PostgreSQL alike), so that a
 * follower that comes back with the last id it got (Last-Event-ID) resumes after it, on any
 * instance and after any restart, none lost and none repeated. This instance's own additions
 * wake its followers at once (`added`); others' are seen within `pollMs`.
 */
export class PetFeed {
  private readonly pollMs: number;
  private readonly gapWaitMs: number;
  private readonly pageSize: number;
  /** The followers waiting for the next poll. */
  private readonly waiting = new Set<() => void>();

  constructor(
    private readonly store: FeedStore,
    { pollMs = 1000, gapWaitMs = 11_000, pageSize = 100 }: PetFeedOptions = {},
  ) {
    this.pollMs = pollMs;
    this.gapWaitMs = gapWaitMs;
    this.pageSize = pageSize;
  }

  /** Tells the followers of this instance that an animal was added: they read it now, not at their next poll. */
  added(): void {
    for (const wake of [...this.waiting]) wake();
  }

  /** How many followers are waiting for animals now. */
  get followers(): number {
    return this.waiting.size;
  }

  /**
   * The animals added after `afterId` (after the last one in the store now, when undefined), in id
   * order, as they are added; it ends when `signal` aborts. At a missing id it waits up to
   * `gapWaitMs` for the animal to be committed before going past it (see PetFeedOptions).
   */
  async *follow(afterId: number | undefined, signal: AbortSignal): AsyncGenerator<Pet> {
    let last = afterId ?? (await this.store.lastPetId());
    let gapSince: number | undefined;
    while (!signal.aborted) {
      const page = await this.store.listPets({ limit: this.pageSize, afterId: last });
      let heldAtGap = false;
      for (const pet of page) {
        if (pet.id !== last + 1) {
          gapSince ??= Date.now();
          if (Date.now() - gapSince < this.gapWaitMs) {
            heldAtGap = true;
            break;
          }
        }
        gapSince = undefined;
        last = pet.id;
        yield pet;
        if (signal.aborted) return;
      }
      // A full page read whole: the next may follow at once.
      if (!heldAtGap && page.length === this.pageSize) continue;
      await pause(heldAtGap ? Math.min(this.pollMs, 100) : this.pollMs, signal, this.waiting);
    }
  }
}
