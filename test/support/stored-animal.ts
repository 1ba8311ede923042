import { PET_COLUMNS } from '../../src/service/store/pet-record.js';

/**
 * An animal as a store returns it when it was sent as `sent`: every field sent, and each column
 * it was not sent as the store filled it in `returned` (a column's default: a field every animal
 * must have, docs/designers.md). Tests that compare a whole animal compare with this, so that such
 * a column needs no edit of theirs.
 */
export function asStored<T extends object>(sent: T, returned: object): T {
  const filled = Object.keys(PET_COLUMNS)
    .filter((field) => !Object.hasOwn(sent, field) && Object.hasOwn(returned, field))
    .map((field): [string, unknown] => [field, (returned as Record<string, unknown>)[field]]);
  // Spread and fromEntries define own properties: a field named __proto__ stays a field.
  return { ...sent, ...(Object.fromEntries(filled) as Partial<T>) };
}
