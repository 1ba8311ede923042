import type { PetsTable } from './pet-record.js';
import type { ApiKeyRecord } from './records.js';

/**
 * The tables of both engines as the store reads and writes them (migrations.ts creates them).
 * Numbers are numbers on both: PostgreSQL's BIGINT is mapped where its pool is made.
 */
export interface Tables {
  /** Its columns follow from PET_COLUMNS (pet-record.ts). */
  pets: PetsTable;
  api_keys: {
    id: string;
    name: string;
    plan: ApiKeyRecord['plan'];
    per_minute: number | null;
    per_day: number | null;
    environment: ApiKeyRecord['environment'];
    hash: string;
    display_prefix: string;
    created_at: string;
    revoked_at: string | null;
  };
  idempotency_keys: {
    api_key_id: string;
    idempotency_key: string;
    fingerprint: string;
    state: 'in_flight' | 'completed';
    response_status: number | null;
    response_body: string | null;
    created_at: number;
    locked_at: number;
    /** The token of the claim's holder (HeldClaim); null in rows written before it existed. */
    claim_token: string | null;
  };
}
