import type { components } from '../../../generated/openapi.js';
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

/**
 * A claim on an Idempotency-Key, as the request that made it holds it: only the holder of the
 * key's current claim (its token) may complete, renew or release it, so a request whose claim
 * was taken over cannot also record a creation.
 */
export interface HeldClaim extends IdempotencyScope {
  token: string;
}

/** What claiming an Idempotency-Key found. */
export type IdempotencyClaim =
  /** The key is new (or its earlier request failed, or it expired): go ahead, holding this claim. */
  | { outcome: 'claimed'; held: HeldClaim }
  /** A request with this key is being processed right now; its claim lapses at `lockedUntil` unless renewed. */
  | { outcome: 'in_flight'; lockedUntil: Date }
  /** The key was used with a different request body. */
  | { outcome: 'mismatch' }
  /** The key's request completed: answer with its response. */
  | { outcome: 'replay'; status: number; body: unknown };

/** Timing of idempotency claims. */
export interface ClaimTiming {
  now: Date;
  /** A claim not renewed for this long (its instance died, or stalled) may be taken over. */
  lockMs: number;
  /** Records older than this are forgotten; the key may then be used anew. */
  retentionMs: number;
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

/** The engines a store runs on. */
export type Engine = 'sqlite' | 'postgres';
