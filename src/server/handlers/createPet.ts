import type { Handler } from '../handler-types.js';

/** POST /pets: stores the animal (status `available` unless given) and answers 201 with it. */
export const createPet: Handler<'createPet'> = async ({ body }, { store }) => {
  const pet = await store.createPet({ name: body.name, categoryId: body.categoryId, status: body.status ?? 'available' });
  return { status: 201, body: pet };
};
