import type { components } from '@animal-store/client';
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

/** Whose Idempotency-Key it is: keys are scoped to the API key that sent them. */
export interface IdempotencyScope {
  apiKeyId: string;
  key: string;
}

/** What claiming an Idempotency-Key found. */
export type IdempotencyClaim =
  /** The key is new (or its earlier request failed, or it expired): go ahead. */
  | { outcome: 'claimed' }
  /** A request with this key is being processed right now. */
  | { outcome: 'in_flight' }
  /** The key was used with a different request body. */
  | { outcome: 'mismatch' }
  /** The key's request completed: answer with its response. */
  | { outcome: 'replay'; status: number; body: unknown };

/** Timing of idempotency claims. */
export interface ClaimTiming {
  now: Date;
  /** A claim older than this whose request never completed (its instance died) may be taken over. */
  lockMs: number;
  /** Records older than this are forgotten; the key may then be used anew. */
  retentionMs: number;
}

/** Stored animals. */
export interface PetRepository {
  /** At most `limit` animals after `afterId`, by id ascending. */
  listPets(query: PetPageQuery): Promise<Pet[]>;
  /**
   * Stores an animal and returns it with its new id; ids are never reused. With `idempotency`,
   * the 201 response is recorded under that claimed key in the same transaction, so a retry
   * finds either nothing or the animal, never half of it.
   */
  createPet(pet: PetToCreate, idempotency?: IdempotencyScope): Promise<Pet>;
  getPet(id: number): Promise<Pet | undefined>;
}

/** Idempotency-Key records of POST /pets, shared by every instance through the store. */
export interface IdempotencyRepository {
  /** Claims a key for a request whose body has this fingerprint, or says why it cannot. */
  claimIdempotencyKey(scope: IdempotencyScope, fingerprint: string, timing: ClaimTiming): Promise<IdempotencyClaim>;
  /** Gives up a claim whose request did not complete, so a retry may proceed. */
  releaseIdempotencyKey(scope: IdempotencyScope): Promise<void>;
  /** Forgets records created before `before`; returns how many. */
  purgeIdempotencyKeys(before: Date): Promise<number>;
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
export interface Store extends PetRepository, KeyRepository, IdempotencyRepository {
  /** Which engine, for logs and messages. */
  readonly engine: 'sqlite' | 'postgres';
  /** Resolves when the store answers; rejects otherwise (for /readyz). */
  ping(): Promise<void>;
  close(): Promise<void>;
}
