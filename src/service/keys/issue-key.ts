import { randomBytes } from 'node:crypto';
import { hasUnsafeCharacter, isInvisible } from '../../shared/visible-text.js';
import type { Plan } from '../limits/plans.js';
import type { ApiKeyRecord, KeyRepository } from '../store/store.js';
import { generateKey, type KeyEnvironment } from './key-format.js';
import { KeyRequestError } from './key-request-error.js';

/** What to issue a key for. Enterprise keys need their own limits; other plans must not have them. */
export interface KeyRequest {
  name: string;
  plan: Plan;
  environment: KeyEnvironment;
  perMinute?: number;
  perDay?: number;
}

/** Longest name a key may have, in characters (after trimming white space). */
export const KEY_NAME_MAX_LENGTH = 200;

/** Issues a key (see newKey): stores its hash and returns the key, which is never shown again. */
export async function issueKey(keys: KeyRepository, request: KeyRequest, now: Date): Promise<{ key: string; record: ApiKeyRecord }> {
  const issued = newKey(request, now);
  await keys.insertKey(issued.record);
  return issued;
}

/**
 * A new key and the record of its hash, not stored yet. Throws a KeyRequestError for a name that
 * is empty or too long, holds a control character (one a terminal would act on when the name is
 * listed) or only invisible ones, and for limits that do not fit the plan.
 */
export function newKey(request: KeyRequest, now: Date): { key: string; record: ApiKeyRecord } {
  const name = request.name.trim();
  if (name.length === 0 || name.length > KEY_NAME_MAX_LENGTH) {
    throw new KeyRequestError('name_length', `a key's name must be 1 to ${KEY_NAME_MAX_LENGTH} characters, not ${name.length}`);
  }
  if (hasUnsafeCharacter(name) || isInvisible(name)) {
    throw new KeyRequestError('name_characters', "a key's name may not hold control characters, nor only invisible ones");
  }
  const custom = request.perMinute !== undefined || request.perDay !== undefined;
  if (request.plan === 'enterprise') {
    if (request.perMinute === undefined || request.perDay === undefined) {
      throw new KeyRequestError('limits_missing', 'an Enterprise key needs its own limits, per minute and per day');
    }
    if (request.perMinute > request.perDay) {
      throw new KeyRequestError(
        'limits_order',
        `a key's limit per minute (${request.perMinute}) cannot be larger than its limit per day (${request.perDay})`,
      );
    }
  } else if (custom) {
    throw new KeyRequestError('limits_not_allowed', `only Enterprise keys have limits of their own; the ${request.plan} plan's are fixed`);
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
  return { key: issued.key, record };
}
