import type { ApiKeyRecord } from './store.js';

/** An api_keys row as both engines return it. */
export interface KeyRow {
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
}

/** Maps an api_keys row to the record the service uses. */
export const toKey = (row: KeyRow): ApiKeyRecord => ({
  id: row.id,
  name: row.name,
  plan: row.plan,
  perMinute: row.per_minute,
  perDay: row.per_day,
  environment: row.environment,
  hash: row.hash,
  displayPrefix: row.display_prefix,
  createdAt: row.created_at,
  revokedAt: row.revoked_at,
});
