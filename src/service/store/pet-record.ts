import type { Selectable } from 'kysely';
import type { Pet, PetToCreate } from './records.js';
import type { Tables } from './tables.js';

/**
 * How both stores keep an animal: the fields the database filters, orders or constrains as
 * columns of `pets`, and every other field of the validated request, whatever the contract
 * adds to NewPet, kept whole as one JSON object in the column `other_fields` (NULL when there
 * is none). An optional field added to NewPet and Pet in openapi.yaml is therefore stored and
 * returned with no edit here and no migration; a field that needs an index or a constraint of
 * its own becomes a column (a migration in migrations.ts, and an entry here).
 */
export const PET_COLUMNS = { name: 'name', categoryId: 'category_id', status: 'status' } as const;

/** The columns of `pets` a store reads an animal from. */
export const PET_SELECT = ['id', 'name', 'category_id', 'status', 'other_fields'] as const;

/** The fields kept as columns, besides `id`, which the store assigns. */
type ColumnField = keyof typeof PET_COLUMNS;

/** The fields kept in `other_fields`. */
type OtherFields = Omit<Pet, 'id' | ColumnField>;

/** The fields of an animal to store that have no column of their own, as JSON; null when none. */
export function otherFieldsOf(pet: PetToCreate): string | null {
  const other = Object.entries(pet).filter(([field]) => !Object.hasOwn(PET_COLUMNS, field));
  // fromEntries defines own properties, so even a field named __proto__ stays a field.
  return other.length === 0 ? null : JSON.stringify(Object.fromEntries(other));
}

/** A pets row as PET_SELECT reads it. */
export type PetRow = Pick<Selectable<Tables['pets']>, (typeof PET_SELECT)[number]>;

/**
 * An animal as the contract returns it, from its columns and its other fields (JSON text, as
 * SQLite gives it, or already parsed, as PostgreSQL gives JSON). Columns first, then the other
 * fields in the order they were sent.
 */
export function petFromRow({ id, name, category_id: categoryId, status, other_fields: otherFields }: PetRow): Pet {
  if (otherFields === null) return { id, name, categoryId, status };
  const other = (typeof otherFields === 'string' ? JSON.parse(otherFields) : otherFields) as OtherFields;
  return { id, name, categoryId, status, ...other };
}
