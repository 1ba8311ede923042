import type { TypedHandler } from 'contract-kit';
import type { Operations } from '../../../../generated/operations.js';
import type { Context } from '../context.js';
import { decodeCursor, nextLink } from '../pagination.js';

const DEFAULT_LIMIT = 20;

/** GET /pets: a page of animals by id, optionally filtered by status, with a Link to the next page. */
export const listPets: TypedHandler<Operations['listPets'], Context> = async ({ query }, { store, basePath }) => {
  const limit = query.limit ?? DEFAULT_LIMIT;
  const afterId = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
  // One row more than asked tells whether a next page exists, without a count.
  const rows = await store.listPets({ limit: limit + 1, status: query.status, afterId });
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  if (rows.length > limit && last) {
    return { status: 200, body: page, headers: { Link: nextLink(basePath, '/pets', { limit, status: query.status }, last.id) } };
  }
  return { status: 200, body: page };
};
