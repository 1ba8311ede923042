import type { ApiKeyRecord } from './records.js';
import type { Tables } from './tables.js';

/** An api_keys row as the store returns it. */
export const toKey = (row: Tables['api_keys']): ApiKeyRecord => ({
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
