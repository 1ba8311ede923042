import { isIP } from 'node:net';
import { isAbsolute, resolve } from 'node:path';
import { PACKAGE_ROOT } from '../../shared/package-root.js';
import { parseWholeNumber, PORT_RANGE } from '../../shared/whole-number.js';
import { parseAllowedOrigin } from 'contract-kit';

// How the text of an environment variable becomes a setting's value. Each parser throws an
// Error whose message says what the value must be; loadConfig puts the variable's name before it.

/** A whole number from `min` to `max`. */
export function wholeNumber(min: number, max: number) {
  return (raw: string): number => parseWholeNumber(raw, { min, max });
}

/** A port to listen on; 0 picks a free one. */
export const port = wholeNumber(PORT_RANGE.min, PORT_RANGE.max);

/** The text as it is. */
export const text = (raw: string): string => raw;

/** A file path; a relative one starts at the package root. */
export const pathFromPackageRoot = (raw: string): string => (isAbsolute(raw) ? raw : resolve(PACKAGE_ROOT, raw));

/** A URL with one of `schemes`; `example` shows the expected form. */
export function urlOf(schemes: string[], example: string) {
  return (raw: string): string => {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new Error(`must be a URL such as ${example}`);
    }
    if (!schemes.includes(url.protocol.slice(0, -1))) throw new Error(`must start with ${schemes.map((s) => `${s}://`).join(' or ')}`);
    return raw;
  };
}

/** One of `values`, exactly. */
export function oneOf<T extends string>(...values: T[]) {
  return (raw: string): T => {
    const value = values.find((candidate) => candidate === raw);
    if (value === undefined) throw new Error(`must be one of ${values.join(', ')}`);
    return value;
  };
}

/** A prefix of Redis keys: letters, digits and a few separators, so every key stays readable. */
export function redisKeyPrefix(raw: string): string {
  if (!/^[\w:.-]{1,64}$/.test(raw)) throw new Error('must be 1 to 64 letters, digits, or _ : . -');
  return raw;
}

/** One entry of TRUST_PROXY as Express's proxy-addr takes it: an address, a subnet (CIDR or address/netmask) or a named range. */
function isProxyEntry(entry: string): boolean {
  if (['loopback', 'linklocal', 'uniquelocal'].includes(entry)) return true;
  const [address = '', range, ...rest] = entry.split('/');
  const version = isIP(address);
  if (version === 0 || rest.length > 0) return false;
  if (range === undefined) return true;
  if (/^\d{1,3}$/.test(range)) return Number(range) <= (version === 4 ? 32 : 128);
  return version === 4 && isIP(range) === 4;
}

/** Express's `trust proxy`, refused here rather than when Express compiles it. */
export function trustProxy(raw: string): boolean | number | string {
  if (raw === 'false') return false;
  if (raw === 'true') return true;
  if (/^\d+$/.test(raw)) return Number(raw);
  const entries = raw.split(',').map((entry) => entry.trim());
  const bad = entries.filter((entry) => !isProxyEntry(entry));
  if (bad.length === 0) return raw;
  throw new Error(
    `must be false, true, a hop count, or comma-separated addresses, subnets (10.0.0.0/8) or loopback, linklocal, uniquelocal; not ${bad.map((b) => JSON.stringify(b)).join(', ')}`,
  );
}

/** Comma-separated origins as browsers send them (see parseAllowedOrigin), or `none`. */
export function allowedOrigins(raw: string): string[] {
  if (raw === 'none') return [];
  const origins = raw.split(',').map((entry) => entry.trim());
  if (origins.some((entry) => entry === '')) throw new Error('must be origins separated by commas, without empty entries');
  return origins.map(parseAllowedOrigin);
}
