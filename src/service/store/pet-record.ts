import type { ColumnType, Generated, Insertable, Selectable } from 'kysely';
import type { Pet, PetToCreate } from './records.js';

/**
 * How both stores keep an animal: the fields the database filters, orders, constrains or fills
 * as columns of `pets` (field → column), and every other field of the validated request,
 * whatever the contract adds to NewPet, kept whole as one JSON object in the column
 * `other_fields` (NULL when there is none). An optional field added to NewPet and Pet in
 * openapi.yaml is therefore stored and returned with no edit here and no migration; a field that
 * needs an index, a constraint or a default of its own (one every animal already stored gets)
 * becomes a column: a migration in migrations.ts, and an entry here. The table's type, the columns
 * read and the row mapping below all follow from this one list.
 */
export const PET_COLUMNS = { name: 'name', categoryId: 'category_id', status: 'status' } as const;

/** The fields kept as columns, besides `id`, which the store assigns. */
type ColumnField = keyof typeof PET_COLUMNS;

/** What a column takes on insert: the request's field (optional where NewPet's is), or nothing when the database fills it. */
type InsertOf<F extends ColumnField> = F extends keyof PetToCreate ? PetToCreate[F] : undefined;

/** The table `pets`, as PET_COLUMNS maps it. */
export type PetsTable = {
  id: Generated<number>;
  /** JSON: SQLite gives the text, PostgreSQL the parsed object; written as text. */
  other_fields: ColumnType<string | object | null, string | null, never>;
  /** When it was added (its default): SQLite gives ISO 8601 text, PostgreSQL a Date. Not part of an animal. */
  created_at: ColumnType<string | Date, never, never>;
} & { [F in ColumnField as (typeof PET_COLUMNS)[F]]: ColumnType<Pet[F], InsertOf<F>, Pet[F]> };

const COLUMN_ENTRIES = Object.entries(PET_COLUMNS) as [ColumnField, (typeof PET_COLUMNS)[ColumnField]][];

/** The columns of `pets` a store reads an animal from. */
export const PET_SELECT = ['id', ...COLUMN_ENTRIES.map(([, column]) => column), 'other_fields'] as const;

/** A pets row as PET_SELECT reads it. */
export type PetRow = Pick<Selectable<PetsTable>, (typeof PET_SELECT)[number]>;

/** The fields of an animal to store that have no column of their own, as JSON; null when none. */
function otherFieldsOf(pet: PetToCreate): string | null {
  const other = Object.entries(pet).filter(([field]) => !Object.hasOwn(PET_COLUMNS, field));
  // fromEntries defines own properties, so even a field named __proto__ stays a field.
  return other.length === 0 ? null : JSON.stringify(Object.fromEntries(other));
}

/** The row to insert for an animal: its column fields (a field it lacks is left to the column's default) and the others as JSON. */
export function petValues(pet: PetToCreate): Insertable<PetsTable> {
  const values: Record<string, unknown> = { other_fields: otherFieldsOf(pet) };
  for (const [field, column] of COLUMN_ENTRIES) {
    const value = (pet as Partial<Record<ColumnField, unknown>>)[field];
    if (value !== undefined) values[column] = value;
  }
  return values as Insertable<PetsTable>;
}

/**
 * An animal as the contract returns it, from its columns and its other fields (JSON text, as
 * SQLite gives it, or already parsed, as PostgreSQL gives JSON). `id` and the columns first, in
 * PET_COLUMNS's order, then the other fields in the order they were sent.
 */
export function petFromRow(row: PetRow): Pet {
  const pet: Record<string, unknown> = { id: row.id };
  for (const [field, column] of COLUMN_ENTRIES) pet[field] = row[column];
  const otherFields = row.other_fields;
  if (otherFields === null) return pet as Pet;
  // Spread defines own properties (Object.assign would set them): a field named __proto__ stays a field.
  return { ...pet, ...((typeof otherFields === 'string' ? JSON.parse(otherFields) : otherFields) as object) } as Pet;
}
