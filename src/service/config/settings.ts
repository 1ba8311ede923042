import { join } from 'node:path';
import { PACKAGE_ROOT } from '../../shared/package-root.js';
import { LOCAL_ORIGINS } from '../allowed-origins.js';
import { PUBLIC_LIMITS } from '../limits/plans.js';
import { MEMORY_COUNTER_MAX_ENTRIES } from '../limits/memory-counters.js';
import { POSTGRES_DEFAULTS } from '../store/postgres/postgres-defaults.js';
import { allowedOrigins, oneOf, pathFromPackageRoot, port, redisKeyPrefix, text, trustProxy, urlOf, wholeNumber } from './value-parsers.js';

/**
 * One setting: its environment variable, what it does (for `--help`), its value when the variable
 * is unset or empty, and how its text becomes a value (throwing an Error saying what it must be).
 */
export interface Setting<T> {
  readonly variable: string;
  readonly doc: string;
  readonly default: T;
  parse(raw: string): T;
}

/** A setting whose default is one of its values; the type of both is that of what `parse` returns. */
function setting<T>(spec: { variable: string; doc: string; default: NoInfer<T>; parse: (raw: string) => T }): Setting<T> {
  return spec;
}

/** A setting that is off (null) unless its variable is set. */
function optional<T>(spec: { variable: string; doc: string; parse: (raw: string) => T }): Setting<T | null> {
  return { ...spec, default: null };
}

/** Sockets the service listens with, sharing its port (contract-kit's listeningSockets; docs/architecture.md says why 8). */
export const LISTENING_SOCKETS = 8;

/**
 * Every setting of the service, by its name in {@link Config}, in the order `--help` lists them.
 * Nothing else in the service reads process.env: loadConfig reads these variables, once.
 */
export const SETTINGS = {
  port: setting({
    variable: 'PORT',
    doc:
      `Port to listen on (0 picks a free one), with ${LISTENING_SOCKETS} sockets that share it (SO_REUSEPORT; \`ss -ltn\` lists the port ${LISTENING_SOCKETS} times), so that a burst of ` +
      `new connections is accepted ${LISTENING_SOCKETS} a turn of the event loop, not 1; a port another process holds is refused all the same (EADDRINUSE).`,
    default: 3000,
    parse: port,
  }),
  host: setting({ variable: 'HOST', doc: 'Address to listen on.', default: '0.0.0.0', parse: text }),
  databasePath: setting({
    variable: 'DATABASE_PATH',
    doc: 'SQLite database file, created with its folder on first start. Relative paths start at the package root.',
    default: join(PACKAGE_ROOT, 'data', 'animal-store.db'),
    parse: pathFromPackageRoot,
  }),
  databaseUrl: optional({
    variable: 'DATABASE_URL',
    doc: 'PostgreSQL connection string (postgres://user@host:5432/db). When set, the store is PostgreSQL and DATABASE_PATH is ignored.',
    parse: urlOf(['postgres', 'postgresql'], 'postgres://user:password@host:5432/database'),
  }),
  databasePoolSize: setting({
    variable: 'DATABASE_POOL_SIZE',
    doc: 'PostgreSQL connections per instance.',
    default: POSTGRES_DEFAULTS.poolSize,
    parse: wholeNumber(1, 1000),
  }),
  databaseConnectTimeoutMs: setting({
    variable: 'DATABASE_CONNECT_TIMEOUT_MS',
    doc: 'Wait for a PostgreSQL connection at most this long; then 503.',
    default: POSTGRES_DEFAULTS.connectTimeoutMs,
    parse: wholeNumber(100, 600_000),
  }),
  databaseQueryTimeoutMs: setting({
    variable: 'DATABASE_QUERY_TIMEOUT_MS',
    doc: 'A PostgreSQL query may take at most this long; then 503.',
    default: POSTGRES_DEFAULTS.queryTimeoutMs,
    parse: wholeNumber(100, 600_000),
  }),
  redisUrl: optional({
    variable: 'REDIS_URL',
    doc: 'Redis connection string (redis://host:6379). When set, limits and bans are shared by every instance through Redis.',
    parse: urlOf(['redis', 'rediss'], 'redis://host:6379'),
  }),
  redisKeyPrefix: setting({
    variable: 'REDIS_KEY_PREFIX',
    doc: 'Prefix of every Redis key the service writes; instances that share limits must share it.',
    default: 'animal-store',
    parse: redisKeyPrefix,
  }),
  redisTimeoutMs: setting({
    variable: 'REDIS_TIMEOUT_MS',
    doc: 'A Redis command may take at most this long; then this instance counts in memory until Redis answers again.',
    default: 100,
    parse: wholeNumber(5, 60_000),
  }),
  environment: setting({
    variable: 'ANIMAL_STORE_ENV',
    doc: 'Deployment: production accepts only as_prod_ keys, staging only as_stag_ keys.',
    default: 'production',
    parse: oneOf('production', 'staging'),
  }),
  nodeEnv: setting({
    variable: 'NODE_ENV',
    doc: 'development prints a new key on first start on SQLite when none exists; production never creates one. Set production in production.',
    default: 'development',
    parse: oneOf('development', 'production', 'test'),
  }),
  logLevel: setting({
    variable: 'LOG_LEVEL',
    doc: 'Log level (JSON lines on standard output).',
    default: 'info',
    parse: oneOf('fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'),
  }),
  trustProxy: setting({
    variable: 'TRUST_PROXY',
    doc:
      'Which proxies in front of the service to believe about the client address (X-Forwarded-For), as Express\'s "trust proxy" takes it: ' +
      "false, a hop count (1 for one load balancer), or the proxies' addresses/subnets, comma-separated (10.0.0.0/8, loopback). " +
      'true believes every hop, so a client writes its own address into the header: refused with NODE_ENV=production.',
    default: false,
    parse: trustProxy,
  }),
  anonymousPerMinute: setting({
    variable: 'ANONYMOUS_PER_MINUTE',
    doc: 'Requests per minute per client address without a valid key.',
    default: 30,
    parse: wholeNumber(1, 1_000_000),
  }),
  anonymousPerDay: setting({
    variable: 'ANONYMOUS_PER_DAY',
    doc: 'Requests per day per client address without a valid key.',
    default: 1000,
    parse: wholeNumber(1, 100_000_000),
  }),
  banAfterRefusals: setting({
    variable: 'BAN_AFTER_REFUSALS',
    doc: 'Refused requests of one client address within one window after which the key or address is banned; its first refusal, those in the 2 s after it, and as many as it was refused in all in the previous window (clients coming back after Retry-After, at most 1,000), are not counted.',
    default: 10,
    parse: wholeNumber(1, 1_000_000),
  }),
  limiterMaxEntries: setting({
    variable: 'LIMITER_MAX_ENTRIES',
    doc: "Without Redis, and with it while Redis fails: windows of client addresses kept in memory per counter (minute, day, refusals, bans; API keys' are never evicted), rounded up to a power of two, in a table allocated at start (24 bytes a window); a new address whose slots are all taken pushes out the window that expires first. With Redis, as many again, in all, of what those windows counted while Redis failed wait to be added to Redis when it is back (the oldest dropped first).",
    default: MEMORY_COUNTER_MAX_ENTRIES,
    parse: wholeNumber(1000, 100_000_000),
  }),
  documentsPerMinute: setting({
    variable: 'DOCS_PER_MINUTE',
    doc: 'Requests per minute per client address for /docs, /openapi.yaml, /openapi.json and /favicon.ico (no key needed).',
    default: PUBLIC_LIMITS.documents.perMinute,
    parse: wholeNumber(1, 1_000_000),
  }),
  healthPerMinute: setting({
    variable: 'HEALTH_PER_MINUTE',
    doc: 'Requests per minute per client address for /healthz and /readyz (a load balancer checks from few addresses).',
    default: PUBLIC_LIMITS.health.perMinute,
    parse: wholeNumber(1, 1_000_000),
  }),
  banSeconds: setting({
    variable: 'BAN_SECONDS',
    doc: 'Length of a temporary ban, in seconds.',
    default: 600,
    parse: wholeNumber(1, 86_400 * 30),
  }),
  corsOrigins: optional({
    variable: 'CORS_ORIGINS',
    doc: `Origins whose pages may call the service from a browser (CORS), comma-separated, exactly as browsers send them (https://app.example.com); host:* allows every port of a host, the default one included (no other wildcard); none allows no origin. Unset: none in production, ${LOCAL_ORIGINS.join(' and ')} otherwise.`,
    parse: allowedOrigins,
  }),
  metricsPort: optional({
    variable: 'METRICS_PORT',
    doc: "Serve Prometheus metrics (GET /metrics: requests by operation, method and status with latencies, rate-limit decisions by plan, store errors, Redis fallbacks, idempotent replays, event-loop lag, process) on this port, never on the API's. Unset: no metrics.",
    parse: wholeNumber(1, 65535),
  }),
  metricsHost: setting({
    variable: 'METRICS_HOST',
    doc: 'Address the metrics listen on (loopback unless the scraper is elsewhere).',
    default: '127.0.0.1',
    parse: text,
  }),
  startupTimeoutMs: setting({
    variable: 'STARTUP_TIMEOUT_MS',
    doc: 'At start, wait this long for PostgreSQL (DATABASE_URL) and Redis (REDIS_URL) to answer, trying again with backoff; then exit 1 with the reason. 0 tries once.',
    default: 30_000,
    parse: wholeNumber(0, 3_600_000),
  }),
  shutdownTimeoutMs: setting({
    variable: 'SHUTDOWN_TIMEOUT_MS',
    doc: 'How long a stop (SIGTERM, SIGINT) may take: past it, the connections of requests still in flight are closed. The last log lines then get at most 1 s more, and are dropped if stdout takes none.',
    default: 10_000,
    parse: wholeNumber(0, 600_000),
  }),
  shutdownLingerMs: setting({
    variable: 'SHUTDOWN_LINGER_MS',
    doc: 'On a stop, keep answering for up to this long (within SHUTDOWN_TIMEOUT_MS), on open connections and new ones, each answer closing its connection and /readyz answering 503, so that requests already sent are answered; then stop listening and close idle connections. It ends sooner once no connection is open.',
    default: 1_000,
    parse: wholeNumber(0, 600_000),
  }),
  headersTimeoutMs: setting({
    variable: 'HEADERS_TIMEOUT_MS',
    doc: 'A client that has not sent all its headers after this long has its connection closed.',
    default: 10_000,
    parse: wholeNumber(100, 600_000),
  }),
  requestTimeoutMs: setting({
    variable: 'REQUEST_TIMEOUT_MS',
    doc: 'A client that has not sent its whole request (headers and body) after this long has its connection closed.',
    default: 30_000,
    parse: wholeNumber(100, 600_000),
  }),
  keepAliveTimeoutMs: setting({
    variable: 'KEEP_ALIVE_TIMEOUT_MS',
    doc: 'An idle keep-alive connection is closed after this long.',
    default: 5_000,
    parse: wholeNumber(100, 600_000),
  }),
  maxConnections: setting({
    variable: 'MAX_CONNECTIONS',
    doc: "Connections held at once, in all; a new one beyond it takes the place of an idle one (no request in progress): the one idle longest of those that never sent a request, else of those served before. It is closed at once only when no connection is idle, or when its address holds more than 6 and at least the mean and that connection is another address's. Keep it below the open-file limit (ulimit -n; Node raises the soft limit to the hard one at start).",
    default: 10_000,
    parse: wholeNumber(10, 10_000_000),
  }),
  maxConnectionsPerAddress: setting({
    variable: 'MAX_CONNECTIONS_PER_ADDRESS',
    doc: 'Connections one client address (an IPv6 /64) may hold at once; 0 for no cap. Behind a reverse proxy every connection comes from the proxy: raise it or set 0, and cap clients at the proxy.',
    default: 256,
    parse: wholeNumber(0, 10_000_000),
  }),
} satisfies Record<string, Setting<unknown>>;

/** The value type of a setting. */
type ValueOf<S> = S extends Setting<infer T> ? T : never;

/** The service's configuration, one value per setting of {@link SETTINGS}, read once at start by loadConfig. */
export type Config = { [K in keyof typeof SETTINGS]: ValueOf<(typeof SETTINGS)[K]> };

/** A configuration with each setting's value taken from `valueOf` its setting. */
export function configFrom(valueOf: <T>(setting: Setting<T>) => T): Config {
  const settings: [string, Setting<unknown>][] = Object.entries(SETTINGS);
  // Object.fromEntries types its result by string keys alone; it holds every key of SETTINGS.
  return Object.fromEntries(settings.map(([key, setting]) => [key, valueOf(setting)])) as Config;
}

/** The configuration of a service given no variable: every setting's default. */
export function defaultConfig(): Config {
  return configFrom((setting) => setting.default);
}

/** The settings as a table, for `--help`: a setting off unless set says "unset", as docs/operators.md does. */
export const describeSettings = (): string =>
  Object.values(SETTINGS)
    .map((s) => `  ${s.variable.padEnd(22)} ${s.doc} (default: ${s.default === null ? 'unset' : String(s.default)})`)
    .join('\n');
