import { hash, randomInt } from 'node:crypto';
import { crc32 } from 'node:zlib';

/** The deployments a key can belong to. */
export type KeyEnvironment = 'production' | 'staging';

/** The recognisable start of every key, one per environment (also in openapi.yaml). */
const KEY_PREFIX: Record<KeyEnvironment, string> = { production: 'as_prod_', staging: 'as_stag_' };

/** The start of every key of an environment (`as_prod_`). */
export const keyPrefix = (environment: KeyEnvironment): string => KEY_PREFIX[environment];

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const SECRET_LENGTH = 32;
const CHECKSUM_LENGTH = 6;
/** Every well-formed key: prefix, secret, checksum. */
export const KEY_PATTERN = new RegExp(`^as_(prod|stag)_([0-9A-Za-z]{${SECRET_LENGTH}})([0-9A-Za-z]{${CHECKSUM_LENGTH}})$`);

function base62(value: number, length: number): string {
  let out = '';
  let rest = value;
  for (let i = 0; i < length; i++) {
    out = ALPHABET[rest % 62]! + out;
    rest = Math.floor(rest / 62);
  }
  return out;
}

/** CRC32 of the prefix and secret, as six base62 characters. */
function checksum(body: string): string {
  return base62(crc32(body), CHECKSUM_LENGTH);
}

/** SHA-256 of a key, hex: the only form in which a key is stored. */
export function hashKey(key: string): string {
  return hash('sha256', key);
}

/** A newly issued key: the secret to show once, and what is kept of it. */
export interface IssuedKey {
  key: string;
  hash: string;
  /** The first characters of the key, kept to tell keys apart in listings. */
  displayPrefix: string;
}

/** Issues a new random key for an environment (about 190 bits of randomness). */
export function generateKey(environment: KeyEnvironment): IssuedKey {
  let secret = '';
  for (let i = 0; i < SECRET_LENGTH; i++) secret += ALPHABET[randomInt(62)];
  const body = KEY_PREFIX[environment] + secret;
  const key = body + checksum(body);
  return { key, hash: hashKey(key), displayPrefix: key.slice(0, KEY_PREFIX[environment].length + 4) };
}

/** What a bearer token turned out to be, before any lookup. */
export type ParsedKey = { ok: true; environment: KeyEnvironment; hash: string } | { ok: false; reason: 'malformed' | 'checksum' };

/**
 * Checks a token's form and checksum without a lookup, so mistyped or made-up keys are refused
 * cheaply.
 */
export function parseKey(token: string): ParsedKey {
  const match = KEY_PATTERN.exec(token);
  if (!match) return { ok: false, reason: 'malformed' };
  const body = token.slice(0, token.length - CHECKSUM_LENGTH);
  if (checksum(body) !== match[3]) return { ok: false, reason: 'checksum' };
  return { ok: true, environment: match[1] === 'prod' ? 'production' : 'staging', hash: hashKey(token) };
}
