import { otherFieldsOf, PET_SELECT, petFromRow } from '../pet-record.js';
import type { IdempotencyScope, Pet, PetPageQuery, PetRepository, PetStatus, PetToCreate } from '../store.js';
import type { PostgresConnection } from './postgres-connection.js';
import { completeClaim } from './postgres-idempotency.js';

interface PetRow {
  id: string;
  name: string;
  category_id: string;
  status: PetStatus;
  /** A JSON column: pg gives it parsed. */
  other_fields: object | null;
}

/** pg returns BIGINT as a string; every id and category id goes through here. */
function toSafeInteger(value: string, column: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n)) throw new Error(`${column} ${value} is beyond 2^53-1`);
  return n;
}

const toPet = (row: PetRow): Pet =>
  petFromRow(toSafeInteger(row.id, 'pets.id'), row.name, toSafeInteger(row.category_id, 'pets.category_id'), row.status, row.other_fields);

/** The animals in PostgreSQL. */
export class PostgresPets implements PetRepository {
  constructor(private readonly connection: PostgresConnection) {}

  async listPets({ limit, status, afterId = 0 }: PetPageQuery): Promise<Pet[]> {
    const result =
      status === undefined
        ? await this.connection.query<PetRow>(`SELECT ${PET_SELECT} FROM pets WHERE id > $1 ORDER BY id LIMIT $2`, [afterId, limit])
        : await this.connection.query<PetRow>(`SELECT ${PET_SELECT} FROM pets WHERE status = $1 AND id > $2 ORDER BY id LIMIT $3`, [
            status,
            afterId,
            limit,
          ]);
    return result.rows.map(toPet);
  }

  async createPet(pet: PetToCreate, idempotency?: IdempotencyScope): Promise<Pet> {
    const insert = `INSERT INTO pets (name, category_id, status, other_fields) VALUES ($1, $2, $3, $4) RETURNING ${PET_SELECT}`;
    const values = [pet.name, pet.categoryId, pet.status, otherFieldsOf(pet)];
    if (!idempotency) return toPet((await this.connection.query<PetRow>(insert, values)).rows[0]!);
    return this.connection.transaction(async (query) => {
      const created = toPet((await query<PetRow>(insert, values)).rows[0]!);
      await completeClaim(query, idempotency, created);
      return created;
    });
  }

  async getPet(id: number): Promise<Pet | undefined> {
    const row = (await this.connection.query<PetRow>(`SELECT ${PET_SELECT} FROM pets WHERE id = $1`, [id])).rows[0];
    return row && toPet(row);
  }
}
