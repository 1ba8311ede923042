import { NotFoundError } from '../errors/not-found-error.js';
import type { TypedHandler } from 'contract-kit';
import type { Operations } from '../../../../generated/operations.js';
import type { Context } from '../context.js';

/** GET /pets/{petId} (deprecated): one animal, or 404. The deprecation headers come from middleware. */
export const getPet: TypedHandler<Operations['getPet'], Context> = async ({ path }, { store }) => {
  const pet = await store.getPet(path.petId);
  if (!pet) throw new NotFoundError(`Pet ${path.petId} not found.`);
  return { status: 200, body: pet };
};
