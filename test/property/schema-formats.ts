import fc from 'fast-check';
import type { Format } from 'ajv';
import { fastFormats, fullFormats } from 'ajv-formats/dist/formats.js';
import type { GeneratedFormat } from '../../lint/schema-keywords.js';

/**
 * The string formats of lint/schema-keywords.js with values of their own: the numeric ones are
 * bounds (see SchemaArbitraries.integerBounds), and `password` only tells tools to hide the value.
 */
type StringFormat = Exclude<GeneratedFormat, 'int32' | 'int64' | 'float' | 'double' | 'password'>;

/** Integer formats and the range each allows. */
export const INTEGER_FORMATS: Partial<Record<GeneratedFormat, [number, number]>> = {
  int64: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
  int32: [-(2 ** 31), 2 ** 31 - 1],
};

/** Largest float (IEEE 754 binary32), the bound of format `float`. */
export const FLOAT_MAX = (2 - 2 ** -23) * 2 ** 127;

/** Whether a format check (a regular expression, a function, or an object with either) passes a string. */
function check(format: Format | undefined, value: string): boolean {
  if (format === undefined || format === true) return true;
  if (format instanceof RegExp) return format.test(value);
  if (typeof format === 'function') return format(value);
  if (typeof format === 'string') return new RegExp(format).test(value);
  const { validate } = format as { validate: RegExp | string | ((v: unknown) => boolean) };
  return check(validate, value);
}

/**
 * Whether a string passes a format in both of ajv-formats' modes: `fast` (the server's,
 * through express-openapi-validator) and `full` (what a stricter validator checks). A valid
 * value must pass both and a broken one fail both, so that neither depends on the mode.
 */
function formatAccepts(format: string, value: string): boolean {
  return check(fastFormats[format as keyof typeof fastFormats], value) && check(fullFormats[format as keyof typeof fullFormats], value);
}

/** Whether a string fails a format in both of ajv-formats' modes. */
function formatRefuses(format: string, value: string): boolean {
  return !check(fastFormats[format as keyof typeof fastFormats], value) && !check(fullFormats[format as keyof typeof fullFormats], value);
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** A moment of years 0001 to 9999, RFC 3339's range, with a UTC offset in minutes (0 for `Z`). */
const moments = fc
  .tuple(
    fc.date({ min: new Date('0001-01-02T00:00:00.000Z'), max: new Date('9999-12-30T23:59:59.999Z'), noInvalidDate: true }),
    fc.oneof(fc.constant(0), fc.integer({ min: -23 * 60 - 59, max: 23 * 60 + 59 })),
    fc.constantFrom('', 'ms', 'us'),
  )
  .map(([date, offset, fraction]) => {
    const local = new Date(date.getTime() + offset * 60_000);
    const day = `${pad(local.getUTCFullYear(), 4)}-${pad(local.getUTCMonth() + 1)}-${pad(local.getUTCDate())}`;
    const seconds =
      fraction === '' ? '' : fraction === 'ms' ? `.${pad(local.getUTCMilliseconds(), 3)}` : `.${pad(local.getUTCMilliseconds(), 3)}123`;
    const time = `${pad(local.getUTCHours())}:${pad(local.getUTCMinutes())}:${pad(local.getUTCSeconds())}${seconds}`;
    const zone = offset === 0 ? 'Z' : `${offset < 0 ? '-' : '+'}${pad(Math.floor(Math.abs(offset) / 60))}:${pad(Math.abs(offset) % 60)}`;
    return { day, time: time + zone };
  });

/** Values of each string format, accepted by both ajv-formats modes (test/property/schema-keywords.test.ts checks). */
const VALID: Record<StringFormat, fc.Arbitrary<string>> = {
  'date-time': moments.map(({ day, time }) => `${day}T${time}`),
  date: moments.map(({ day }) => day),
  time: moments.map(({ time }) => time),
  uuid: fc.uuid(),
  email: fc.emailAddress(),
  uri: fc.webUrl({ withQueryParameters: true, withFragments: true }),
  hostname: fc.domain(),
  ipv4: fc.ipV4(),
  ipv6: fc.ipV6(),
  byte: fc.base64String({ maxLength: 40 }),
};

/** Ways of spoiling a valid value of each format; what still passes either mode is filtered out by the caller. */
const SPOILERS: Record<StringFormat, ((s: string) => string)[]> = {
  'date-time': [
    (s) => s.replace(/(Z|[+-]\d\d:\d\d)$/, ''),
    (s) => s.replace('T', '_'),
    (s) => s.replace(/:\d\d/, ':60'),
    (s) => s.replaceAll('-', '/'),
    (s) => s.slice(1),
    (s) => `${s}x`,
  ],
  date: [(s) => s.replaceAll('-', '/'), (s) => s.slice(1), (s) => `${s}T00:00:00Z`, (s) => `${s}x`, (s) => s.replace(/-(\d\d)$/, '-$1$1')],
  time: [(s) => s.replace(/(Z|[+-]\d\d:\d\d)$/, ''), (s) => s.replace(/:\d\d/, ':60'), (s) => s.slice(1), (s) => `${s}x`],
  uuid: [(s) => s.slice(1), (s) => `${s.slice(0, -1)}g`, (s) => s.replaceAll('-', ''), (s) => `{${s}}`],
  email: [(s) => s.replace('@', ''), (s) => s.replace('@', '@@'), (s) => `${s}@`, (s) => ` ${s}`],
  uri: [(s) => s.replace(/^[a-z][a-z0-9+.-]*:/i, ''), (s) => `${s} x`, (s) => s.replace(':', '')],
  hostname: [(s) => `-${s}`, (s) => `${s}_`, (s) => `${s}..x`, (s) => `${'a'.repeat(64)}.${s}`],
  ipv4: [(s) => s.replace(/^\d+/, '256'), (s) => s.replace(/\.\d+$/, ''), (s) => `${s}.1`],
  ipv6: [(s) => `${s}:::`, (s) => `g${s}`, (s) => `${s}:1:2:3:4:5:6:7:8`],
  byte: [(s) => `${s}!`, (s) => `${s}A`, (s) => `=${s}`],
};

/** Strings of a format that both ajv-formats modes accept, or null for a format without values of its own. */
export function formatValues(format: string): fc.Arbitrary<string> | null {
  const values = Object.hasOwn(VALID, format) ? VALID[format as StringFormat] : null;
  return values ? values.filter((s) => formatAccepts(format, s)) : null;
}

/** Strings near a valid value of a format that both modes refuse, or null for a format that refuses nothing. */
export function brokenFormatValues(format: string): fc.Arbitrary<string> | null {
  if (!Object.hasOwn(SPOILERS, format)) return null;
  const spoilers = SPOILERS[format as StringFormat];
  return fc
    .tuple(VALID[format as StringFormat], fc.constantFrom(...spoilers))
    .map(([s, spoil]) => spoil(s))
    .filter((s) => formatRefuses(format, s));
}
