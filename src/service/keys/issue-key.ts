import { randomBytes } from 'node:crypto';
import type { Plan } from '../limits/plans.js';
import type { ApiKeyRecord, KeyRepository } from '../store/store.js';
import { generateKey, type KeyEnvironment } from './key-format.js';

/** What to issue a key for. Enterprise keys need their own limits; other plans must not have them. */
export interface KeyRequest {
  name: string;
  plan: Plan;
  environment: KeyEnvironment;
  perMinute?: number;
  perDay?: number;
}

/** Issues a key: stores its hash and returns the key, which is never shown again. */
export async function issueKey(keys: KeyRepository, request: KeyRequest, now: Date): Promise<{ key: string; record: ApiKeyRecord }> {
  const name = request.name.trim();
  if (name.length === 0 || name.length > 200) throw new Error('--name must be 1 to 200 characters');
  const custom = request.perMinute !== undefined || request.perDay !== undefined;
  if (request.plan === 'enterprise') {
    if (request.perMinute === undefined || request.perDay === undefined) {
      throw new Error('an enterprise key needs --per-minute and --per-day');
    }
    if (request.perMinute > request.perDay) throw new Error('--per-minute cannot be larger than --per-day');
  } else if (custom) {
    throw new Error(`--per-minute and --per-day are for enterprise keys; the ${request.plan} plan has fixed limits`);
  }
  const issued = generateKey(request.environment);
  const record: ApiKeyRecord = {
    id: `key_${randomBytes(6).toString('hex')}`,
    name,
    plan: request.plan,
    perMinute: request.plan === 'enterprise' ? request.perMinute! : null,
    perDay: request.plan === 'enterprise' ? request.perDay! : null,
    environment: request.environment,
    hash: issued.hash,
    displayPrefix: issued.displayPrefix,
    createdAt: now.toISOString(),
    revokedAt: null,
  };
  await keys.insertKey(record);
  return { key: issued.key, record };
}
