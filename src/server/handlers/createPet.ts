import type { Handler } from '../handler-types.js';
import { canonicalName } from '../pet-name.js';

/**
 * POST /pets: stores the animal (its name in NFC, status `available` unless given) and answers
 * 201 with it.
 * With an Idempotency-Key, the store records this response with the animal (see
 * middleware/idempotency.ts).
 */
export const createPet: Handler<'createPet'> = async ({ body }, { store, idempotency }) => {
  const pet = await store.createPet({ name: canonicalName(body.name), categoryId: body.categoryId, status: body.status ?? 'available' }, idempotency);
  return { status: 201, body: pet };
};
