import type { TypedHandler } from 'contract-kit';
import type { Operations } from '../../../../generated/operations.js';
import type { Context } from '../context.js';

/**
 * GET /pets/feed: first an event of an id alone, where the stream begins (after Last-Event-ID, or
 * after the last animal now: see PetFeed.start), which a client that reconnects before the first
 * animal sends back; then an `added` event for each animal added, in id order (feed/pet-feed.ts).
 * The stream ends when the client goes away or the service stops (contract-kit aborts `signal`).
 */
export const followPets: TypedHandler<Operations['followPets'], Context> = ({ headers }, { feed, signal }) => {
  const after = headers['Last-Event-ID'];
  return {
    status: 200,
    body: (async function* () {
      const start = await feed.start(after === undefined ? undefined : Number(after));
      yield { id: String(start) };
      for await (const pet of feed.follow(start, signal)) yield { id: String(pet.id), event: 'added' as const, data: JSON.stringify(pet) };
    })(),
  };
};
