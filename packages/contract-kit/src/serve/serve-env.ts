import { SERVE_DEFAULTS, type ServeOptions } from './serve-options.js';

/** The environment variable of each setting serveOptionsFromEnv reads, what its value is, and its least value. */
const VARIABLES = {
  port: ['PORT', 'a port number (0 to 65535)', 0],
  headersTimeoutMs: ['HEADERS_TIMEOUT_MS', 'a number of milliseconds', 0],
  requestTimeoutMs: ['REQUEST_TIMEOUT_MS', 'a number of milliseconds', 0],
  keepAliveTimeoutMs: ['KEEP_ALIVE_TIMEOUT_MS', 'a number of milliseconds', 0],
  shutdownTimeoutMs: ['SHUTDOWN_TIMEOUT_MS', 'a number of milliseconds', 0],
  lingerMs: ['SHUTDOWN_LINGER_MS', 'a number of milliseconds', 0],
  maxConnections: ['MAX_CONNECTIONS', 'a number of connections, 1 or more', 1],
  maxConnectionsPerAddress: ['MAX_CONNECTIONS_PER_ADDRESS', 'a number of connections (0 for no cap)', 0],
} as const;

/** A setting of the environment that is not valid, with a message that says which and why. */
export class SettingError extends Error {
  override name = 'SettingError';
}

/**
 * The options of serve that the environment sets: PORT, HOST, HEADERS_TIMEOUT_MS,
 * REQUEST_TIMEOUT_MS, KEEP_ALIVE_TIMEOUT_MS, SHUTDOWN_TIMEOUT_MS, SHUTDOWN_LINGER_MS,
 * MAX_CONNECTIONS and MAX_CONNECTIONS_PER_ADDRESS; those unset are left out.
 * @throws SettingError for a value that is not a whole number in range, naming the variable
 */
export function serveOptionsFromEnv(env: NodeJS.ProcessEnv): ServeOptions {
  const options: ServeOptions = {};
  for (const [key, [name, what, least]] of Object.entries(VARIABLES) as [
    keyof typeof VARIABLES,
    (typeof VARIABLES)[keyof typeof VARIABLES],
  ][]) {
    const text = env[name]?.trim();
    if (text === undefined || text === '') continue;
    const value = Number(text);
    const max = key === 'port' ? 65_535 : 2_147_483_647;
    if (!/^\d+$/.test(text) || value > max || value < least) throw new SettingError(`${name} must be ${what}, not "${text}"`);
    options[key] = value;
  }
  if (env.HOST?.trim()) options.host = env.HOST.trim();
  const headers = options.headersTimeoutMs ?? SERVE_DEFAULTS.headersTimeoutMs;
  const request = options.requestTimeoutMs ?? SERVE_DEFAULTS.requestTimeoutMs;
  if (request > 0 && headers > request)
    throw new SettingError(
      `HEADERS_TIMEOUT_MS (${headers}) must not be above REQUEST_TIMEOUT_MS (${request}): the headers are part of the request`,
    );
  return options;
}
