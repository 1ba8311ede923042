import { NotFoundError } from '../errors/not-found-error.js';
import type { Handler } from '../handler-types.js';

/** GET /pets/{petId} (deprecated): one animal, or 404. The deprecation headers come from middleware. */
export const getPet: Handler<'getPet'> = async ({ path }, { store }) => {
  const pet = await store.getPet(path.petId);
  if (!pet) throw new NotFoundError(`Pet ${path.petId} not found.`);
  return { status: 200, body: pet };
};
