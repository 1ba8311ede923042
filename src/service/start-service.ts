import { once } from 'node:events';
import type { Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { SETTINGS } from './config/settings.js';
import { anonymousRateLimitHeaders, createApp, type AppDependencies } from './http/app.js';
import type { ConnectionLimits } from './http/connection-cap.js';
import { createHttpServer, type HttpTimeouts } from './http/http-server.js';

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
  /**
   * Stops gracefully: no new connections; responses in flight are finished (with `Connection:
   * close`, so keep-alive clients let go) for up to `graceMs` (shutdownTimeoutMs by default),
   * then their connections are closed; then the store and `alsoClose` are closed. Calling it
   * again while it runs returns the same promise, or, with a shorter `graceMs` (a second
   * Ctrl+C), cuts the wait short.
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
    alsoClose = [],
    ...dependencies
  } = options;
  const { server } = createHttpServer(createApp(dependencies), {
    timeouts: { ...HTTP_TIMEOUTS, ...timeouts },
    connections: { ...CONNECTION_LIMITS, ...connections },
    rateLimitHeadersFor: anonymousRateLimitHeaders(dependencies),
    corsOrigins: dependencies.corsOrigins,
    logger: dependencies.logger,
  });
  server.listen(port, host);
  await once(server, 'listening');
  const listening = (server.address() as AddressInfo).port;
  const shownHost = host === '0.0.0.0' || host === '::' || host === '127.0.0.1' || host === '::1' ? 'localhost' : host;
  const stop = gracefulStop(server, shutdownTimeoutMs, dependencies.logger, async () => {
    await dependencies.store.close();
    for (const close of alsoClose) await close();
  });
  return { server, port: listening, origin: `http://${shownHost}:${listening}`, stop };
}

/**
 * The stop of {@link RunningService} for `server`: tracks the responses not yet sent from now on,
 * and runs `closeAfter` once the server has closed.
 */
function gracefulStop(server: Server, shutdownTimeoutMs: number, logger: Logger, closeAfter: () => Promise<void>): RunningService['stop'] {
  let stopping = false;
  // Responses not yet sent when the stop begins, and any after, close their connection.
  const unsent = new Set<ServerResponse>();
  // One listener for every response ('close' comes once it is sent or its connection is gone):
  // no closure per request on the hot path.
  function forget(this: ServerResponse) {
    unsent.delete(this);
  }
  server.on('request', (_req, res: ServerResponse) => {
    if (stopping) return res.setHeader('Connection', 'close');
    unsent.add(res);
    res.on('close', forget);
  });
  let stopped: Promise<void> | null = null;
  let closed = false;
  let force: NodeJS.Timeout | undefined;
  return ({ graceMs = shutdownTimeoutMs } = {}) => {
    // Within grace: finish what is in flight; past it (or on a later, shorter stop): cut.
    clearTimeout(force);
    force = setTimeout(() => {
      if (closed) return;
      logger.warn({ graceMs }, 'requests still in flight after the grace period; closing their connections');
      server.closeAllConnections();
    }, graceMs);
    force.unref();
    if (stopped) return stopped;
    stopping = true;
    for (const res of unsent) if (!res.headersSent) res.setHeader('Connection', 'close');
    stopped = new Promise<void>((resolve) => {
      const sweep = setInterval(() => server.closeIdleConnections(), 100);
      server.close(() => {
        closed = true;
        clearInterval(sweep);
        clearTimeout(force);
        resolve();
      });
      server.closeIdleConnections();
    }).then(closeAfter);
    return stopped;
  };
}

/**
 * Stops the service on SIGTERM or SIGINT (however it was started: npm, node, a container's PID
 * 1), then exits 0. A second signal while it stops cuts the grace period: in-flight requests'
 * connections are closed at once.
 */
export function stopOnSignals(service: RunningService, onSignal: (signal: NodeJS.Signals, again: boolean) => void): void {
  let signalled = false;
  const handle = (signal: NodeJS.Signals) => {
    onSignal(signal, signalled);
    const stopping = service.stop(signalled ? { graceMs: 0 } : {});
    if (!signalled)
      stopping.then(
        () => process.exit(0),
        () => process.exit(1),
      );
    signalled = true;
  };
  process.on('SIGTERM', handle);
  process.on('SIGINT', handle);
}
