import type { components } from '../../generated/openapi.js';
import type { KeyEnvironment } from '../keys/key-format.js';
import type { Plan } from '../limits/plans.js';

export type Pet = components['schemas']['Pet'];
export type PetStatus = components['schemas']['PetStatus'];
/** An animal to store: a NewPet with its status decided. */
export type PetToCreate = Omit<components['schemas']['NewPet'], 'status'> & { status: PetStatus };

/** One page of the keyset-paginated list, ordered by id ascending. */
export interface PetPageQuery {
  limit: number;
  status?: PetStatus;
  /** Only animals with an id above this one. */
  afterId?: number;
}

/** Stored animals. */
export interface PetRepository {
  /** At most `limit` animals after `afterId`, by id ascending. */
  listPets(query: PetPageQuery): Promise<Pet[]>;
  /** Stores an animal and returns it with its new id; ids are never reused. */
  createPet(pet: PetToCreate): Promise<Pet>;
  getPet(id: number): Promise<Pet | undefined>;
}

/** What is kept of an API key: never the key itself. */
export interface ApiKeyRecord {
  id: string;
  name: string;
  plan: Plan;
  /** Limits agreed for an Enterprise key; null for the other plans. */
  perMinute: number | null;
  perDay: number | null;
  environment: KeyEnvironment;
  /** SHA-256 of the key, hex. */
  hash: string;
  /** First characters of the key, to tell keys apart. */
  displayPrefix: string;
  createdAt: string;
  revokedAt: string | null;
}

/** Stored API keys. */
export interface KeyRepository {
  insertKey(record: ApiKeyRecord): Promise<void>;
  findKeyByHash(hash: string): Promise<ApiKeyRecord | undefined>;
  listKeys(): Promise<ApiKeyRecord[]>;
  /** Marks a key revoked; returns it, or undefined when no key has this id. */
  revokeKey(id: string, at: Date): Promise<ApiKeyRecord | undefined>;
}

/** Everything the service keeps. One implementation per engine; all pass test/store/store-suite.ts. */
export interface Store extends PetRepository, KeyRepository {
  /** Resolves when the store answers; rejects otherwise (for /readyz). */
  ping(): Promise<void>;
  close(): Promise<void>;
}
