import Database from 'better-sqlite3';
import { issueKey } from '../src/service/keys/issue-key.js';
import type { PetStatus } from '../src/service/store/store.js';
import { SqliteStore } from '../src/service/store/sqlite/sqlite-store.js';

const STATUSES: PetStatus[] = ['available', 'pending', 'sold'];

/** The animal with id `id` (1-based), the same in the seeded store and in the baselines. */
function animal(id: number): { id: number; name: string; categoryId: number; status: PetStatus } {
  return { id, name: `Animal ${id}`, categoryId: (id % 12) + 1, status: STATUSES[id % 3]! };
}

/** The first `count` animals: what `GET /v1/pets?limit=20` answers on a seeded store. */
export const firstAnimals = (count: number) => Array.from({ length: count }, (_, i) => animal(i + 1));

/**
 * Creates a migrated SQLite store at `path` holding `count` animals (ids 1..count) and one
 * Enterprise key whose limits the bench cannot reach; returns the key. The animals go in with
 * one INSERT … SELECT, straight into the file, not over HTTP: a million take seconds.
 */
export async function seedStore(path: string, count: number): Promise<string> {
  const store = SqliteStore.open(path);
  try {
    const { key } = await issueKey(
      store,
      { name: 'bench', plan: 'enterprise', environment: 'production', perMinute: 1_000_000_000, perDay: 1_000_000_000_000 },
      new Date(),
    );
    const db = new Database(path);
    try {
      // Generated inside SQLite: the same animals as animal(id), without a round trip per row.
      db.prepare(
        `WITH RECURSIVE n(id) AS (SELECT 1 UNION ALL SELECT id + 1 FROM n WHERE id < ?)
         INSERT INTO pets (id, name, category_id, status)
         SELECT id, 'Animal ' || id, (id % 12) + 1, CASE id % 3 WHEN 0 THEN 'available' WHEN 1 THEN 'pending' ELSE 'sold' END FROM n`,
      ).run(count);
      db.pragma('wal_checkpoint(TRUNCATE)');
    } finally {
      db.close();
    }
    return key;
  } finally {
    await store.close();
  }
}
