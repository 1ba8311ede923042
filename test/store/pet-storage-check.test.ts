import { describe, expect, it } from 'vitest';
import { loadSpec, type OpenApiDocument } from '../../src/contract/load-spec.js';
import { petStorageGaps } from '../../scripts/codegen/pet-storage-check.js';

/** The contract with NewPet and Pet edited as a designer would. */
function edited(edit: (schemas: Record<string, { properties: Record<string, unknown>; required: string[] }>) => void): OpenApiDocument {
  const doc = structuredClone(loadSpec());
  edit(doc.components!.schemas as never);
  return doc;
}

const TAGS = { type: 'array', items: { type: 'string' }, uniqueItems: true };

describe('the storage gate (npm run generate and npm run check report it)', () => {
  it('finds nothing to report in openapi.yaml: the stores keep every field of Pet', () => {
    expect(petStorageGaps(loadSpec())).toEqual([]);
  });

  it('finds nothing to keep in a contract without the operation that stores animals (createPet)', () => {
    const doc = structuredClone(loadSpec());
    delete doc.paths['/pets']!.post;
    expect(petStorageGaps(doc)).toEqual([]);
    doc.paths['/pets']!.post = { operationId: 'createPet', responses: { '204': { description: 'Kept nothing.' } } };
    expect(() => petStorageGaps(doc)).toThrow(/createPet has no JSON request body or no JSON 201 response/);
  });

  it('lets an optional field through, and a required one that NewPet requires or defaults', () => {
    expect(
      petStorageGaps(
        edited((s) => {
          s.NewPet!.properties.tags = TAGS;
          s.Pet!.properties.tags = TAGS;
        }),
      ),
    ).toEqual([]);
    expect(
      petStorageGaps(
        edited((s) => {
          s.NewPet!.properties.tags = { ...TAGS, default: [] };
          s.Pet!.properties.tags = TAGS;
          s.Pet!.required.push('tags');
        }),
      ),
    ).toEqual([]);
    expect(
      petStorageGaps(
        edited((s) => {
          s.NewPet!.properties.tags = TAGS;
          s.NewPet!.required.push('tags');
          s.Pet!.properties.tags = TAGS;
          s.Pet!.required.push('tags');
        }),
      ),
    ).toEqual([]);
  });

  it('names a required Pet field that nothing stores, and each step that would store it: the migration, PET_COLUMNS, the examples lacking it', () => {
    const gaps = petStorageGaps(
      edited((s) => {
        s.Pet!.properties.createdAt = { type: 'string', format: 'date-time' };
        s.Pet!.required.push('createdAt');
      }),
    );
    expect(gaps).toHaveLength(1);
    expect(gaps[0]).toMatch(/^Pet\.createdAt is required in every animal returned, but no store keeps it: NewPet does not have it/);
    expect(gaps[0]).toContain('a migration named "add pets.created_at" appended to MIGRATIONS in src/service/store/migrations.ts');
    expect(gaps[0]).toContain("SQLite's ADD COLUMN takes no other default");
    expect(gaps[0]).toContain("createdAt: 'created_at' in PET_COLUMNS in src/service/store/pet-record.ts");
    // Every example of a Pet the responses give (the list's, create's and get's), each once.
    expect(gaps[0]).toContain(
      'the examples #/components/examples/ListPetsResponseExample/value, #/components/examples/CreatePetResponseExample/value, #/components/examples/GetPetResponseExample/value in openapi.yaml',
    );
  });

  it('names a required Pet field that NewPet has but does not always send', () => {
    const gaps = petStorageGaps(
      edited((s) => {
        s.NewPet!.properties.tags = TAGS;
        s.Pet!.properties.tags = TAGS;
        s.Pet!.required.push('tags');
      }),
    );
    expect(gaps).toEqual([expect.stringMatching(/^Pet\.tags is required .* NewPet has it but neither requires it nor gives it a default/)]);
  });

  it('names a NewPet field that Pet does not declare, since it would be stored and returned', () => {
    const gaps = petStorageGaps(
      edited((s) => {
        s.NewPet!.properties.secret = { type: 'string' };
      }),
    );
    expect(gaps).toEqual([expect.stringMatching(/^NewPet\.secret is stored and returned with the animal, but Pet does not declare it/)]);
  });
});
