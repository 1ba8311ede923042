import type { TypedHandler } from 'contract-kit';
import type { Operations } from '../../../../generated/operations.js';
import type { Context } from '../context.js';

/**
 * POST /pets: stores the animal as sent (its name already in NFC, see pet-name.ts; status
 * `available` unless given; every other field of NewPet kept as it came, see
 * store/pet-record.ts) and answers 201 with it. With an Idempotency-Key, the store records this
 * response with the animal (see middleware/idempotency.ts). The feed's followers (GET
 * /pets/feed) are told.
 */
export const createPet: TypedHandler<Operations['createPet'], Context> = async ({ body }, { store, feed, idempotency }) => {
  const pet = await store.createPet({ ...body, status: body.status ?? 'available' }, idempotency);
  // This instance's followers read it now; other instances' at their next poll.
  feed.added();
  return { status: 201, body: pet };
};
