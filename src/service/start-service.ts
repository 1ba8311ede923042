import type { Server } from 'node:http';
import type { Logger } from 'pino';
import { SETTINGS } from './config/settings.js';
import { anonymousRateLimitHeaders, BODY_LIMIT_BYTES, createApp, type AppDependencies } from './http/app.js';
import type { ConnectionLimits } from './http/connection-cap.js';
import { createHttpServer, type HttpServer, type HttpTimeouts } from './http/http-server.js';
import { listenShared, type Listening } from './http/listeners.js';

/** What {@link startService} needs: the app's dependencies and where to listen. */
export interface ServiceOptions extends AppDependencies {
  port: number;
  host: string;
  /** The HTTP server's timeouts. @default those of HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS and KEEP_ALIVE_TIMEOUT_MS */
  timeouts?: Partial<HttpTimeouts>;
  /** The caps on connections. @default those of MAX_CONNECTIONS and MAX_CONNECTIONS_PER_ADDRESS */
  connections?: Partial<ConnectionLimits>;
  /** How long a stop waits for in-flight requests before it closes their connections. @default SHUTDOWN_TIMEOUT_MS's default */
  shutdownTimeoutMs?: number;
  /** How long a stop goes on answering before it stops listening (see RunningService.stop). @default SHUTDOWN_LINGER_MS's default */
  shutdownLingerMs?: number;
  /**
   * Closed after the HTTP server and the store, in order, when the service stops: what the
   * caller opened for it (a Redis connection, the metrics server, a throw-away folder).
   */
  alsoClose?: (() => void | Promise<void>)[];
}

/** A service that listens. */
export interface RunningService {
  server: Server;
  /** The port it listens on (the one picked, when asked for port 0). */
  port: number;
  /** `http://HOST:PORT`, with `localhost` for a wildcard or loopback host. */
  origin: string;
  /** Resolves once every operation's validator is compiled, in the background after listening: `/readyz` answers 503 until then. */
  ready: Promise<void>;
  /**
   * Stops gracefully. First it lingers (shutdownLingerMs, or until no connection is open): it
   * goes on answering, on open connections and new ones, so that requests already sent on a
   * kept-alive connection are read and answered rather than cut off; every answer closes its
   * connection (`Connection: close`, responses under way included) and `/readyz` answers 503.
   * Then it stops listening and closes idle connections, finishes the responses in flight, and
   * closes the store and `alsoClose`. Past `graceMs` (shutdownTimeoutMs by default) from the
   * stop, the connections still open are closed. Calling it again while it runs returns the
   * same promise, or, with a shorter `graceMs` (a second Ctrl+C), cuts the wait short.
   */
  stop(options?: { graceMs?: number }): Promise<void>;
}

/** The timeouts of a service given none: the defaults of HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS and KEEP_ALIVE_TIMEOUT_MS. */
const HTTP_TIMEOUTS: HttpTimeouts = {
  headersTimeoutMs: SETTINGS.headersTimeoutMs.default,
  requestTimeoutMs: SETTINGS.requestTimeoutMs.default,
  keepAliveTimeoutMs: SETTINGS.keepAliveTimeoutMs.default,
};

/** The caps of a service given none: the defaults of MAX_CONNECTIONS and MAX_CONNECTIONS_PER_ADDRESS. */
const CONNECTION_LIMITS: ConnectionLimits = {
  maxConnections: SETTINGS.maxConnections.default,
  maxConnectionsPerAddress: SETTINGS.maxConnectionsPerAddress.default,
};

/**
 * The one way the service starts and stops, whoever starts it: `npm start` and the release
 * (src/service/main.ts), the sandbox (scripts/sandbox.ts) and the tests (test/support/test-server.ts).
 * Builds the app, listens, and returns the running service with its graceful stop.
 */
export async function startService(options: ServiceOptions): Promise<RunningService> {
  const {
    port,
    host,
    timeouts,
    connections,
    shutdownTimeoutMs = SETTINGS.shutdownTimeoutMs.default,
    shutdownLingerMs = SETTINGS.shutdownLingerMs.default,
    alsoClose = [],
    ...dependencies
  } = options;
  let stopping = false;
  const { app, ready } = createApp({ ...dependencies, stopping: () => stopping });
  const http = createHttpServer(app, {
    timeouts: { ...HTTP_TIMEOUTS, ...timeouts },
    connections: { ...CONNECTION_LIMITS, ...connections },
    rateLimitHeadersFor: anonymousRateLimitHeaders(dependencies),
    corsOrigins: dependencies.corsOrigins,
    logger: dependencies.logger,
    bodyLimitBytes: BODY_LIMIT_BYTES,
  });
  const { server } = http;
  const listening = await listenShared(server, port, host);
  const shownHost = host === '0.0.0.0' || host === '::' || host === '127.0.0.1' || host === '::1' ? 'localhost' : host;
  const stop = gracefulStop(http, listening, { shutdownTimeoutMs, shutdownLingerMs }, dependencies.logger, {
    begin: () => (stopping = true),
    closeAfter: async () => {
      await dependencies.store.close();
      for (const close of alsoClose) await close();
    },
  });
  return { server, port: listening.port, origin: `http://${shownHost}:${listening.port}`, ready, stop };
}

/** How often a lingering stop looks whether any connection is still open. */
const LINGER_CHECK_MS = 20;

/**
 * The stop of {@link RunningService} for `http`: calls `begin`, lingers, closes the server, then
 * runs `closeAfter`.
 *
 * Why it lingers: Node's server.close() closes at once every connection without a request in
 * progress, and a connection whose next request is on its way, or read by the system but not yet
 * by Node, is one of them: that request would get a reset or an end of file, and its client
 * could not tell whether it was carried out. So the server goes on reading and answering for a
 * while, each answer closing its connection, and stops listening once no connection is open or
 * the linger is over. An idle service has no connection open: it stops within LINGER_CHECK_MS.
 */
function gracefulStop(
  http: HttpServer,
  listening: Listening,
  times: { shutdownTimeoutMs: number; shutdownLingerMs: number },
  logger: Logger,
  steps: { begin: () => void; closeAfter: () => Promise<void> },
): RunningService['stop'] {
  const { server } = http;
  let stopped: Promise<void> | null = null;
  let closed = false;
  let force: NodeJS.Timeout | undefined;
  let endLinger = () => {};
  let closing: Promise<void> | null = null;
  // Stops listening, closes the idle connections, and those that become idle (a response begun
  // before the stop may keep its connection alive) until the last one is gone.
  const closeServer = () =>
    (closing ??= new Promise<void>((resolve) => {
      const sweep = setInterval(() => server.closeIdleConnections(), 100);
      void listening.close().then(() => {
        closed = true;
        clearInterval(sweep);
        clearTimeout(force);
        resolve();
      });
    }));
  return ({ graceMs = times.shutdownTimeoutMs } = {}) => {
    // Within grace: finish what is in flight; past it (or on a later, shorter stop): cut.
    clearTimeout(force);
    force = setTimeout(() => {
      if (closed) return;
      logger.warn({ graceMs }, 'requests still in flight after the grace period; closing their connections');
      endLinger();
      void closeServer();
      server.closeAllConnections();
    }, graceMs);
    force.unref();
    if (stopped) return stopped;
    steps.begin();
    http.connections.closeAfterResponses();
    const lingering = new Promise<void>((resolve) => {
      const check = setInterval(() => http.connections.open === 0 && endLinger(), LINGER_CHECK_MS);
      const timer = setTimeout(() => endLinger(), Math.min(times.shutdownLingerMs, graceMs));
      endLinger = () => {
        clearInterval(check);
        clearTimeout(timer);
        resolve();
      };
    });
    stopped = lingering.then(closeServer).then(steps.closeAfter);
    return stopped;
  };
}

/** How {@link stopOnSignals} tells of a signal, ends the process, and which signals it takes. */
export interface SignalOptions {
  /** Told of each signal; `again` when the service was already stopping. */
  onSignal?: (signal: NodeJS.Signals, again: boolean) => void;
  /** Ends the process. @default process.exit */
  exit?: (code: number) => void;
  /** @default ['SIGTERM', 'SIGINT'] */
  signals?: NodeJS.Signals[];
}

/**
 * Stops the service on SIGTERM or SIGINT (however it was started: npm, node, a container's PID
 * 1), then exits 0 (1 if the stop failed). A second signal while it stops cuts the grace
 * period: in-flight requests' connections are closed at once.
 */
export function stopOnSignals(service: RunningService, options: SignalOptions = {}): void {
  const { onSignal, exit = (code) => process.exit(code), signals = ['SIGTERM', 'SIGINT'] } = options;
  let signalled = false;
  const handle = (signal: NodeJS.Signals) => {
    onSignal?.(signal, signalled);
    const stopping = service.stop(signalled ? { graceMs: 0 } : {});
    if (!signalled)
      stopping.then(
        () => exit(0),
        () => exit(1),
      );
    signalled = true;
  };
  for (const signal of signals) process.on(signal, handle);
}
