import type {
  ApiKeyRecord,
  ClaimTiming,
  IdempotencyClaim,
  IdempotencyRepository,
  IdempotencyScope,
  KeyRepository,
  Pet,
  PetPageQuery,
  PetRepository,
  PetToCreate,
  Store,
} from './store.js';

/** An engine's three repositories, which make its store. */
export interface Repositories {
  pets: PetRepository;
  keys: KeyRepository;
  idempotency: IdempotencyRepository;
}

/**
 * A Store made of an engine's repositories (animals, API keys, Idempotency-Key records), each
 * in a file of its own; the engine adds how it is opened, pinged and closed.
 */
export abstract class RepositoryStore implements Store {
  abstract readonly engine: Store['engine'];
  private readonly repositories: Repositories;

  protected constructor(repositories: Repositories) {
    this.repositories = repositories;
  }

  abstract ping(): Promise<void>;
  abstract close(): Promise<void>;

  listPets(query: PetPageQuery): Promise<Pet[]> {
    return this.repositories.pets.listPets(query);
  }

  createPet(pet: PetToCreate, idempotency?: IdempotencyScope): Promise<Pet> {
    return this.repositories.pets.createPet(pet, idempotency);
  }

  getPet(id: number): Promise<Pet | undefined> {
    return this.repositories.pets.getPet(id);
  }

  insertKey(record: ApiKeyRecord): Promise<void> {
    return this.repositories.keys.insertKey(record);
  }

  findKeyByHash(hash: string): Promise<ApiKeyRecord | undefined> {
    return this.repositories.keys.findKeyByHash(hash);
  }

  listKeys(): Promise<ApiKeyRecord[]> {
    return this.repositories.keys.listKeys();
  }

  revokeKey(id: string, at: Date): Promise<ApiKeyRecord | undefined> {
    return this.repositories.keys.revokeKey(id, at);
  }

  claimIdempotencyKey(scope: IdempotencyScope, fingerprint: string, timing: ClaimTiming): Promise<IdempotencyClaim> {
    return this.repositories.idempotency.claimIdempotencyKey(scope, fingerprint, timing);
  }

  releaseIdempotencyKey(scope: IdempotencyScope): Promise<void> {
    return this.repositories.idempotency.releaseIdempotencyKey(scope);
  }

  purgeIdempotencyKeys(before: Date): Promise<number> {
    return this.repositories.idempotency.purgeIdempotencyKeys(before);
  }
}
