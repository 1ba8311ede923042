import type { TypedHandler } from 'contract-kit';
import type { Operations } from '../../../../generated/operations.js';
import type { Context } from '../context.js';

/**
 * GET /pets/feed: an `added` event for each animal added, in id order, from the one after
 * Last-Event-ID (the last animal now, without it): see feed/pet-feed.ts. The stream ends when
 * the client goes away or the service stops (contract-kit aborts `signal`).
 */
export const followPets: TypedHandler<Operations['followPets'], Context> = ({ headers }, { feed, signal }) => {
  const after = headers['Last-Event-ID'];
  return {
    status: 200,
    body: (async function* () {
      for await (const pet of feed.follow(after === undefined ? undefined : Number(after), signal))
        yield { id: String(pet.id), event: 'added' as const, data: JSON.stringify(pet) };
    })(),
  };
};
