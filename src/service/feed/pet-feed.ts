import type { Pet, Store } from '../store/store.js';

/** What the feed reads of the store: the animals after an id, the last id given, and when an animal was added. */
export type FeedStore = Pick<Store, 'listPets' | 'lastPetId' | 'petAddedAt'>;

/** How the feed follows the store. */
export interface PetFeedOptions {
  /** How often a follower asks the store for animals another instance added. @default 1000 */
  pollMs?: number;
  /**
   * How long a follower waits at a missing id before it goes past it. An id is given when an
   * animal's INSERT begins and seen when its transaction commits; two instances' transactions may
   * commit out of order, and one rolled back leaves its id unused for good. An id whose next
   * animal was added longer ago than this is taken for unused at once; else the follower waits
   * until then. Longer than an INSERT's transaction may last: three statements (the INSERT, the
   * Idempotency-Key's record, the COMMIT) of the store's query timeout each, and a second
   * (see feedGapWaitMs). @default 16000
   */
  gapWaitMs?: number;
  /** Animals read at a time. @default 100 */
  pageSize?: number;
}

/** The gap wait of a store whose statements may each take `queryTimeoutMs` (see PetFeedOptions.gapWaitMs). */
export const feedGapWaitMs = (queryTimeoutMs: number) => 3 * queryTimeoutMs + 1000;

/** Waits `ms`, or less if `wake` is called or `signal` aborts first. */
function pause(ms: number, signal: AbortSignal, waiting: Set<() => void>): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
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
  /** How many times this instance added an animal: a follower that read before the last one reads again. */
  private additions = 0;

  constructor(
    private readonly store: FeedStore,
    { pollMs = 1000, gapWaitMs = feedGapWaitMs(5000), pageSize = 100 }: PetFeedOptions = {},
  ) {
    this.pollMs = pollMs;
    this.gapWaitMs = gapWaitMs;
    this.pageSize = pageSize;
  }

  /** Tells the followers of this instance that an animal was added: they read it now, not at their next poll. */
  added(): void {
    this.additions++;
    for (const wake of [...this.waiting]) wake();
  }

  /**
   * Where a follower begins: after `lastEventId` (the last animal it got), or after the last
   * animal now when it has none, or when it names one past the last (from another deployment, or
   * before a restore), which would wait for ids that may never come.
   */
  async start(lastEventId: number | undefined): Promise<number> {
    const last = await this.store.lastPetId();
    return lastEventId === undefined ? last : Math.min(lastEventId, last);
  }

  /**
   * The animals added after `afterId`, in id order, as they are added; it ends when `signal`
   * aborts. At a missing id it waits for the animal to be committed, up to `gapWaitMs` after the
   * next one was added, before going past it (see PetFeedOptions).
   */
  async *follow(afterId: number, signal: AbortSignal): AsyncGenerator<Pet> {
    let last = afterId;
    /** Until when the follower waits at the missing id after `last`. */
    let gapUntil: number | undefined;
    while (!signal.aborted) {
      const additions = this.additions;
      const page = await this.store.listPets({ limit: this.pageSize, afterId: last });
      let heldAtGap = false;
      for (const pet of page) {
        if (pet.id !== last + 1) {
          gapUntil ??= ((await this.store.petAddedAt(pet.id))?.getTime() ?? Date.now()) + this.gapWaitMs;
          if (Date.now() < gapUntil) {
            heldAtGap = true;
            break;
          }
        }
        gapUntil = undefined;
        last = pet.id;
        yield pet;
        if (signal.aborted) return;
      }
      // A full page read whole, or an animal added here while reading: the next may follow at once.
      if (!heldAtGap && (page.length === this.pageSize || additions !== this.additions)) continue;
      await pause(heldAtGap ? Math.min(this.pollMs, 250) : this.pollMs, signal, this.waiting);
    }
  }
}
