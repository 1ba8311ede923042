import type { OpenApiDocument } from '../../src/contract/load-spec.js';
import type { PetToCreate } from '../../src/service/store/store.js';

const STATUSES = new Set(['available', 'pending', 'sold']);

function isPetLike(value: unknown): value is PetToCreate & { id?: number } {
  const v = value as Record<string, unknown> | null;
  return (
    !!v &&
    typeof v === 'object' &&
    typeof v.name === 'string' &&
    typeof v.categoryId === 'number' &&
    typeof v.status === 'string' &&
    STATUSES.has(v.status)
  );
}

/**
 * The animals the contract's named examples show (components.examples, in order, each once),
 * to seed a sandbox with what the docs and the mock show.
 */
export function animalsFromExamples(doc: OpenApiDocument): PetToCreate[] {
  const seen = new Set<string>();
  const animals: PetToCreate[] = [];
  for (const example of Object.values((doc.components?.examples ?? {}) as Record<string, { value?: unknown }>)) {
    const values = Array.isArray(example.value) ? example.value : [example.value];
    for (const value of values) {
      if (!isPetLike(value)) continue;
      const pet = { name: value.name, categoryId: value.categoryId, status: value.status };
      const key = JSON.stringify(pet);
      if (seen.has(key)) continue;
      seen.add(key);
      animals.push(pet);
    }
  }
  return animals;
}
