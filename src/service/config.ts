import { isIP } from 'node:net';
import { isAbsolute, join, resolve } from 'node:path';
import { PACKAGE_ROOT } from '../shared/package-root.js';
import { parseWholeNumber, PORT_RANGE } from '../shared/whole-number.js';
import { MEMORY_COUNTER_MAX_ENTRIES } from './limits/limiter.js';
import { HTTP_TIMEOUTS } from './http/http-server.js';
import { LOCAL_ORIGINS, parseAllowedOrigin } from './http/middleware/cors.js';
import { PUBLIC_LIMITS } from './http/middleware/rate-limit.js';

/** Root of the package (where package.json is); relative paths in the configuration start here. */
export { PACKAGE_ROOT };

/** The service's configuration, read once at start by {@link loadConfig}. */
export interface Config {
  /** Port to listen on. */
  port: number;
  /** Address to listen on. */
  host: string;
  /** The SQLite database file, used when no databaseUrl is set. */
  databasePath: string;
  /** PostgreSQL connection string; when set, the store is PostgreSQL instead of SQLite. */
  databaseUrl: string | null;
  /** Largest number of PostgreSQL connections per instance. */
  databasePoolSize: number;
  /** How long to wait for a PostgreSQL connection, and for a query, in milliseconds. */
  databaseConnectTimeoutMs: number;
  databaseQueryTimeoutMs: number;
  /** Redis connection string; when set, limits and bans live in Redis, shared by every instance. */
  redisUrl: string | null;
  /** Prefix of every Redis key the service writes. */
  redisKeyPrefix: string;
  /** How long a Redis command may take before this instance counts in memory instead, in milliseconds. */
  redisTimeoutMs: number;
  /** Which deployment this is; only keys of this environment are accepted. */
  environment: 'production' | 'staging';
  /** `development` creates and prints a key on first start; `production` never does. */
  nodeEnv: 'development' | 'production' | 'test';
  /** pino log level. */
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** Express's `trust proxy` setting: which proxies may set the client address (X-Forwarded-For). */
  trustProxy: boolean | number | string;
  /** Limits of requests without a valid key, per client address. */
  anonymousPerMinute: number;
  anonymousPerDay: number;
  /** Refusals in one window after which a key (or address) is banned. */
  banAfterRefusals: number;
  /** Length of a ban, in seconds. */
  banSeconds: number;
  /** Without Redis, the windows each memory counter keeps at most. */
  limiterMaxEntries: number;
  /** Per client address and minute: the documents (/docs, /openapi.*) and the health checks. */
  documentsPerMinute: number;
  healthPerMinute: number;
  /** Origins that browsers may call the service from (CORS); null: the default of NODE_ENV. */
  corsOrigins: string[] | null;
  /** Port of the Prometheus metrics (GET /metrics), apart from the API's; null: no metrics. */
  metricsPort: number | null;
  /** Address the metrics listen on. */
  metricsHost: string;
  /** How long start waits for PostgreSQL and Redis to answer, in milliseconds. */
  startupTimeoutMs: number;
  /** How long shutdown waits for in-flight requests, in milliseconds. */
  shutdownTimeoutMs: number;
  /** How long a client may take to send its headers, and its whole request, in milliseconds. */
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  /** How long an idle keep-alive connection stays open, in milliseconds. */
  keepAliveTimeoutMs: number;
}

/** Thrown for a configuration value that is missing or wrong; the message says which and why. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

interface Setting<K extends keyof Config> {
  key: K;
  variable: string;
  doc: string;
  default: Config[K];
  parse(raw: string): Config[K];
}

function integer(min: number, max: number) {
  return (raw: string): number => parseWholeNumber(raw, { min, max });
}

function urlOf(schemes: string[], example: string) {
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

function oneOf<T extends string>(...values: T[]) {
  return (raw: string): T => {
    if (!(values as string[]).includes(raw)) throw new Error(`must be one of ${values.join(', ')}`);
    return raw as T;
  };
}

/**
 * Every setting: its variable, doc and default. Nothing else in the service reads
 * process.env. `npm start -- --help` prints this table.
 */
export const SETTINGS = [
  {
    key: 'port',
    variable: 'PORT',
    doc: 'Port to listen on (0 picks a free one).',
    default: 3000,
    parse: integer(PORT_RANGE.min, PORT_RANGE.max),
  },
  { key: 'host', variable: 'HOST', doc: 'Address to listen on.', default: '0.0.0.0', parse: (raw: string) => raw },
  {
    key: 'databasePath',
    variable: 'DATABASE_PATH',
    doc: 'SQLite database file, created with its folder on first start. Relative paths start at the package root.',
    default: join(PACKAGE_ROOT, 'data', 'animal-store.db'),
    parse: (raw: string) => (isAbsolute(raw) ? raw : resolve(PACKAGE_ROOT, raw)),
  },
  {
    key: 'databaseUrl',
    variable: 'DATABASE_URL',
    doc: 'PostgreSQL connection string (postgres://user@host:5432/db). When set, the store is PostgreSQL and DATABASE_PATH is ignored.',
    default: null,
    parse: urlOf(['postgres', 'postgresql'], 'postgres://user:password@host:5432/database'),
  },
  {
    key: 'databasePoolSize',
    variable: 'DATABASE_POOL_SIZE',
    doc: 'PostgreSQL connections per instance.',
    default: 10,
    parse: integer(1, 1000),
  },
  {
    key: 'databaseConnectTimeoutMs',
    variable: 'DATABASE_CONNECT_TIMEOUT_MS',
    doc: 'Wait for a PostgreSQL connection at most this long; then 503.',
    default: 2000,
    parse: integer(100, 600_000),
  },
  {
    key: 'databaseQueryTimeoutMs',
    variable: 'DATABASE_QUERY_TIMEOUT_MS',
    doc: 'A PostgreSQL query may take at most this long; then 503.',
    default: 5000,
    parse: integer(100, 600_000),
  },
  {
    key: 'redisUrl',
    variable: 'REDIS_URL',
    doc: 'Redis connection string (redis://host:6379). When set, limits and bans are shared by every instance through Redis.',
    default: null,
    parse: urlOf(['redis', 'rediss'], 'redis://host:6379'),
  },
  {
    key: 'redisKeyPrefix',
    variable: 'REDIS_KEY_PREFIX',
    doc: 'Prefix of every Redis key the service writes; instances that share limits must share it.',
    default: 'animal-store',
    parse: (raw: string) => {
      if (!/^[\w:.-]{1,64}$/.test(raw)) throw new Error('must be 1 to 64 letters, digits, or _ : . -');
      return raw;
    },
  },
  {
    key: 'redisTimeoutMs',
    variable: 'REDIS_TIMEOUT_MS',
    doc: 'A Redis command may take at most this long; then this instance counts in memory until Redis answers again.',
    default: 100,
    parse: integer(5, 60_000),
  },
  {
    key: 'environment',
    variable: 'ANIMAL_STORE_ENV',
    doc: 'Deployment: production accepts only as_prod_ keys, staging only as_stag_ keys.',
    default: 'production',
    parse: oneOf('production', 'staging'),
  },
  {
    key: 'nodeEnv',
    variable: 'NODE_ENV',
    doc: 'development prints a new key on first start on SQLite when none exists; production never creates one. Set production in production.',
    default: 'development',
    parse: oneOf('development', 'production', 'test'),
  },
  {
    key: 'logLevel',
    variable: 'LOG_LEVEL',
    doc: 'Log level (JSON lines on standard output).',
    default: 'info',
    parse: oneOf('fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'),
  },
  {
    key: 'trustProxy',
    variable: 'TRUST_PROXY',
    doc: 'Express "trust proxy": false, true, a hop count, or addresses/subnets (comma-separated) of trusted proxies.',
    default: false,
    parse: (raw: string) => {
      if (raw === 'false') return false;
      if (raw === 'true') return true;
      if (/^\d+$/.test(raw)) return Number(raw);
      const entries = raw.split(',').map((entry) => entry.trim());
      const bad = entries.filter((entry) => !isProxyEntry(entry));
      if (bad.length === 0) return raw;
      throw new Error(
        `must be false, true, a hop count, or comma-separated addresses, subnets (10.0.0.0/8) or loopback, linklocal, uniquelocal; not ${bad.map((b) => JSON.stringify(b)).join(', ')}`,
      );
    },
  },
  {
    key: 'anonymousPerMinute',
    variable: 'ANONYMOUS_PER_MINUTE',
    doc: 'Requests per minute per client address without a valid key.',
    default: 30,
    parse: integer(1, 1_000_000),
  },
  {
    key: 'anonymousPerDay',
    variable: 'ANONYMOUS_PER_DAY',
    doc: 'Requests per day per client address without a valid key.',
    default: 1000,
    parse: integer(1, 100_000_000),
  },
  {
    key: 'banAfterRefusals',
    variable: 'BAN_AFTER_REFUSALS',
    doc: 'Refused requests within one window after which the key or address is banned; refusals in the 2 s after the first one, and as many as the previous window refused in all (clients coming back after Retry-After, at most 1,000), are not counted.',
    default: 10,
    parse: integer(1, 1_000_000),
  },
  {
    key: 'limiterMaxEntries',
    variable: 'LIMITER_MAX_ENTRIES',
    doc: "Without Redis: windows of client addresses kept in memory per counter (minute, day, refusals, bans; API keys' are never evicted), rounded up to a power of two, in a table allocated at start (24 bytes a window); a new address whose slots are all taken pushes out the window that expires first.",
    default: MEMORY_COUNTER_MAX_ENTRIES,
    parse: integer(1000, 100_000_000),
  },
  {
    key: 'documentsPerMinute',
    variable: 'DOCS_PER_MINUTE',
    doc: 'Requests per minute per client address for /docs, /openapi.yaml and /openapi.json (no key needed).',
    default: PUBLIC_LIMITS.documents.perMinute,
    parse: integer(1, 1_000_000),
  },
  {
    key: 'healthPerMinute',
    variable: 'HEALTH_PER_MINUTE',
    doc: 'Requests per minute per client address for /healthz and /readyz (a load balancer checks from few addresses).',
    default: PUBLIC_LIMITS.health.perMinute,
    parse: integer(1, 1_000_000),
  },
  {
    key: 'banSeconds',
    variable: 'BAN_SECONDS',
    doc: 'Length of a temporary ban, in seconds.',
    default: 600,
    parse: integer(1, 86_400 * 30),
  },
  {
    key: 'corsOrigins',
    variable: 'CORS_ORIGINS',
    doc: `Origins whose pages may call the service from a browser (CORS), comma-separated, exactly as browsers send them (https://app.example.com); host:* allows every port of a host, the default one included (no other wildcard); none allows no origin. Unset: none in production, ${LOCAL_ORIGINS.join(' and ')} otherwise.`,
    default: null,
    parse: (raw: string) => {
      if (raw === 'none') return [];
      const origins = raw.split(',').map((entry) => entry.trim());
      if (origins.some((entry) => entry === '')) throw new Error('must be origins separated by commas, without empty entries');
      return origins.map(parseAllowedOrigin);
    },
  },
  {
    key: 'metricsPort',
    variable: 'METRICS_PORT',
    doc: "Serve Prometheus metrics (GET /metrics: requests by operation, method and status with latencies, rate-limit decisions by plan, store errors, Redis fallbacks, idempotent replays, event-loop lag, process) on this port, never on the API's. Unset: no metrics.",
    default: null,
    parse: integer(1, 65535),
  },
  {
    key: 'metricsHost',
    variable: 'METRICS_HOST',
    doc: 'Address the metrics listen on (loopback unless the scraper is elsewhere).',
    default: '127.0.0.1',
    parse: (raw: string) => raw,
  },
  {
    key: 'startupTimeoutMs',
    variable: 'STARTUP_TIMEOUT_MS',
    doc: 'At start, wait this long for PostgreSQL (DATABASE_URL) and Redis (REDIS_URL) to answer, trying again with backoff; then exit 1 with the reason. 0 tries once.',
    default: 30_000,
    parse: integer(0, 3_600_000),
  },
  {
    key: 'shutdownTimeoutMs',
    variable: 'SHUTDOWN_TIMEOUT_MS',
    doc: 'How long shutdown waits for in-flight requests.',
    default: 10_000,
    parse: integer(0, 600_000),
  },
  {
    key: 'headersTimeoutMs',
    variable: 'HEADERS_TIMEOUT_MS',
    doc: 'A client that has not sent all its headers after this long has its connection closed.',
    default: HTTP_TIMEOUTS.headersTimeoutMs,
    parse: integer(100, 600_000),
  },
  {
    key: 'requestTimeoutMs',
    variable: 'REQUEST_TIMEOUT_MS',
    doc: 'A client that has not sent its whole request (headers and body) after this long has its connection closed.',
    default: HTTP_TIMEOUTS.requestTimeoutMs,
    parse: integer(100, 600_000),
  },
  {
    key: 'keepAliveTimeoutMs',
    variable: 'KEEP_ALIVE_TIMEOUT_MS',
    doc: 'An idle keep-alive connection is closed after this long.',
    default: HTTP_TIMEOUTS.keepAliveTimeoutMs,
    parse: integer(100, 600_000),
  },
] as const satisfies readonly Setting<keyof Config>[];

/**
 * Reads and validates the configuration from `env`. Throws one ConfigError naming every bad
 * variable, so an operator fixes them all at once.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const config: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const setting of SETTINGS as readonly Setting<keyof Config>[]) {
    const raw = env[setting.variable];
    if (raw === undefined || raw === '') {
      config[setting.key] = setting.default;
      continue;
    }
    try {
      config[setting.key] = setting.parse(raw.trim());
    } catch (error) {
      problems.push(`${setting.variable}=${JSON.stringify(raw)}: ${(error as Error).message}`);
    }
  }
  if (problems.length === 0 && config.metricsPort !== null && config.metricsPort === config.port) {
    problems.push("METRICS_PORT must not be the API's PORT: metrics are not for the API's clients");
  }
  if (problems.length === 0 && (config.headersTimeoutMs as number) > (config.requestTimeoutMs as number)) {
    problems.push('HEADERS_TIMEOUT_MS must not be larger than REQUEST_TIMEOUT_MS: the headers are part of the request');
  }
  if (problems.length > 0) throw new ConfigError(`Invalid configuration:\n  ${problems.join('\n  ')}`);
  return config as unknown as Config;
}

/** The origins a browser may call from: CORS_ORIGINS, else none in production and local pages otherwise. */
export function corsOriginsOf(config: Pick<Config, 'corsOrigins' | 'nodeEnv'>): readonly string[] {
  return config.corsOrigins ?? (config.nodeEnv === 'production' ? [] : LOCAL_ORIGINS);
}

/** The settings as a table, for `--help`. */
export function describeSettings(): string {
  return SETTINGS.map((s) => `  ${s.variable.padEnd(22)} ${s.doc} (default: ${String(s.default)})`).join('\n');
}
