import { createRequire } from 'node:module';
import type { RequestListener, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { closeUnreadBody, DEFAULT_BODY_LIMIT_BYTES } from './close-unread-body.js';
import type { ValidatorsReady } from './warm-up.js';

// Required, not imported: an ES import of node:http loads undici (nodejs/node#59686).
const { createServer } = createRequire(import.meta.url)('node:http') as typeof import('node:http');

/** How {@link serve} listens and stops. Each has an environment variable, read by {@link serveOptionsFromEnv}. */
export interface ServeOptions {
  /** The port (PORT); 0 picks a free one. @default 3000 */
  port?: number;
  /** The address to listen on (HOST). @default every address of the machine */
  host?: string;
  /** A client that has not sent all its headers after this long has its connection closed (HEADERS_TIMEOUT_MS). @default 10000 */
  headersTimeoutMs?: number;
  /** A client that has not sent its whole request, body included, after this long has its connection closed (REQUEST_TIMEOUT_MS). @default 30000 */
  requestTimeoutMs?: number;
  /** An idle kept-alive connection is closed after this long (KEEP_ALIVE_TIMEOUT_MS). @default 5000 */
  keepAliveTimeoutMs?: number;
  /** How long a stop waits for the requests in flight; past it, their connections are closed (SHUTDOWN_TIMEOUT_MS). @default 10000 */
  shutdownTimeoutMs?: number;
  /** The largest request body the app reads, for closeUnreadBody: give contractServer's bodyLimitBytes. @default 1 MiB */
  bodyLimitBytes?: number;
  /** The signals that stop the server and then end the process (exit 0, or 1 if `onStop` failed). @default ['SIGTERM', 'SIGINT'] */
  signals?: readonly NodeJS.Signals[];
  /** Run once the server has stopped on a signal, before the process exits: close what the app opened (a database pool). */
  onStop?: () => void | Promise<void>;
  /** Told when a stop closes connections still busy at its end. @default console.warn */
  onWarning?: (message: string) => void;
  /**
   * The `ready` of each contract server the app serves: once all have resolved, serve says
   * (onInfo) that every operation's validator is compiled, and how long that took.
   */
  ready?: Promise<ValidatorsReady> | readonly Promise<ValidatorsReady>[];
  /** Told that the validators are ready. @default console.log */
  onInfo?: (message: string) => void;
}

/** A server {@link serve} started. */
export interface Served {
  server: Server;
  /** The port it listens on (the one picked, for port 0). */
  port: number;
  /** `http://localhost:PORT`, or the host given. */
  origin: string;
  /**
   * Stops: no new connection is accepted, idle ones are closed, the requests in flight are
   * answered (each answer then closes its connection), and past `graceMs` (shutdownTimeoutMs by
   * default) the connections still open are closed. Calling it again returns the same promise;
   * with a shorter `graceMs` (a second signal) it cuts the wait short.
   */
  stop(options?: { graceMs?: number }): Promise<void>;
}

/** The defaults of {@link ServeOptions}. */
const SERVE_DEFAULTS = {
  port: 3000,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  shutdownTimeoutMs: 10_000,
} as const;

/** The environment variable of each setting serveOptionsFromEnv reads, in milliseconds but PORT and HOST. */
const VARIABLES = {
  port: 'PORT',
  headersTimeoutMs: 'HEADERS_TIMEOUT_MS',
  requestTimeoutMs: 'REQUEST_TIMEOUT_MS',
  keepAliveTimeoutMs: 'KEEP_ALIVE_TIMEOUT_MS',
  shutdownTimeoutMs: 'SHUTDOWN_TIMEOUT_MS',
} as const;

/** A setting of the environment that is not valid, with a message that says which and why. */
export class SettingError extends Error {
  override name = 'SettingError';
}

/**
 * The options of {@link serve} that the environment sets: PORT, HOST, HEADERS_TIMEOUT_MS,
 * REQUEST_TIMEOUT_MS, KEEP_ALIVE_TIMEOUT_MS and SHUTDOWN_TIMEOUT_MS; those unset are left out.
 * @throws SettingError for a value that is not a whole number in range, naming the variable
 */
export function serveOptionsFromEnv(env: NodeJS.ProcessEnv): ServeOptions {
  const options: ServeOptions = {};
  for (const [key, name] of Object.entries(VARIABLES) as [keyof typeof VARIABLES, string][]) {
    const text = env[name]?.trim();
    if (text === undefined || text === '') continue;
    const value = Number(text);
    const max = key === 'port' ? 65_535 : 2_147_483_647;
    if (!/^\d+$/.test(text) || value > max)
      throw new SettingError(
        `${name} must be ${key === 'port' ? 'a port number (0 to 65535)' : 'a number of milliseconds'}, not "${text}"`,
      );
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

/**
 * Listens with the app on Node's HTTP server, with timeouts that bound how long a slow client
 * holds a connection, closeUnreadBody on every request, and a stop that ends within
 * shutdownTimeoutMs whatever the clients do (a slow upload in progress, too): what a server
 * needs in production, where Node's defaults let one request hold a stop for 5 minutes.
 */
export async function serve(app: RequestListener, options: ServeOptions = {}): Promise<Served> {
  const { headersTimeoutMs, requestTimeoutMs, keepAliveTimeoutMs, shutdownTimeoutMs } = { ...SERVE_DEFAULTS, ...options };
  const warn = options.onWarning ?? ((message: string) => console.warn(message));
  // Node enforces the two request timeouts only when it checks its connections (every 30 s by
  // default), which would let a slow client hold a connection up to 30 s past them.
  const enforced = [headersTimeoutMs, requestTimeoutMs].filter((ms) => ms > 0);
  const server = createServer({
    // A request without a Host header reaches the app, whose router answers it in the contract's
    // error shape (Node's own answer is a bare 400).
    requireHostHeader: false,
    connectionsCheckingInterval: Math.max(10, Math.floor(Math.min(4000, ...enforced) / 4)),
    headersTimeout: headersTimeoutMs,
    requestTimeout: requestTimeoutMs,
    keepAliveTimeout: keepAliveTimeoutMs,
  });
  // Once stopping, each answer not yet begun closes its connection, so that a kept-alive client goes elsewhere.
  let stopping = false;
  const answering = new Set<ServerResponse>();
  server.on('request', (_req, res) => {
    if (stopping) return void res.setHeader('Connection', 'close');
    answering.add(res);
    res.once('close', () => answering.delete(res));
  });
  server.on('request', app);
  server.on('request', (req, res) => closeUnreadBody(req, res, options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? SERVE_DEFAULTS.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const shownHost = options.host === undefined || ['0.0.0.0', '::', '127.0.0.1', '::1'].includes(options.host) ? 'localhost' : options.host;

  let stopped: Promise<void> | undefined;
  let closed = false;
  let force: NodeJS.Timeout | undefined;
  const stop: Served['stop'] = ({ graceMs = shutdownTimeoutMs } = {}) => {
    if (closed) return stopped!;
    // Within grace: the requests in flight are answered; past it (or on a later, shorter stop): cut.
    clearTimeout(force);
    force = setTimeout(() => {
      warn(`requests still in flight ${graceMs} ms after the stop began: their connections are closed`);
      server.closeAllConnections();
    }, graceMs);
    force.unref();
    if (stopped) return stopped;
    stopping = true;
    for (const res of answering) if (!res.headersSent) res.setHeader('Connection', 'close');
    stopped = new Promise<void>((resolve) => {
      // An answer that ends after close() leaves its connection idle: closed at the next sweep.
      const sweep = setInterval(() => server.closeIdleConnections(), 100);
      server.close(() => {
        closed = true;
        clearInterval(sweep);
        clearTimeout(force);
        resolve();
      });
      server.closeIdleConnections();
    });
    return stopped;
  };
  stopOnSignals(stop, options);
  if (options.ready) sayWhenReady(options.ready, options.onInfo ?? ((message: string) => console.log(message)));
  return { server, port, origin: `http://${shownHost}:${port}`, stop };
}

/** Says once every contract server's validators are compiled: how many operations, how long since the first began. */
function sayWhenReady(ready: NonNullable<ServeOptions['ready']>, info: (message: string) => void): void {
  void Promise.all([ready].flat()).then((all) => {
    const count = (key: 'operations' | 'compiled' | 'failed') => all.reduce((sum, r) => sum + r[key], 0);
    if (count('compiled') + count('failed') < count('operations'))
      return info(`Validators: each of ${count('operations')} operations is compiled on its first request (warmUp 'lazy')`);
    const failed = count('failed') > 0 ? `, ${count('failed')} of them failing to compile (see the warnings)` : '';
    const ms = Math.max(...all.map((r) => r.milliseconds));
    info(`Validators ready: ${count('operations')} operations${failed}, compiled in ${Math.round(ms).toLocaleString('en-US')} ms`);
  });
}

/** On the first of `options.signals`, stops, runs onStop and exits; a second cuts the stop's wait. */
function stopOnSignals(stop: Served['stop'], options: ServeOptions): void {
  let signalled = false;
  const handle = () => {
    if (signalled) return void stop({ graceMs: 0 });
    signalled = true;
    stop()
      .then(() => options.onStop?.())
      .then(
        () => process.exit(0),
        (error: unknown) => {
          console.error('the stop failed:', error);
          process.exit(1);
        },
      );
  };
  for (const signal of options.signals ?? ['SIGTERM', 'SIGINT']) process.on(signal, handle);
}
