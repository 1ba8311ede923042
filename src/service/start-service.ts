import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import { serve, type ServeOptions } from 'contract-kit';
import { LISTENING_SOCKETS, SETTINGS } from './config/settings.js';
import { BODY_LIMIT_BYTES, createApp, type AppDependencies } from './http/app.js';
import { anonymousRateLimitHeaders } from './http/middleware/rate-limit.js';

/** The HTTP server's timeouts, in milliseconds (HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS, KEEP_ALIVE_TIMEOUT_MS). */
export type HttpTimeouts = Required<Pick<ServeOptions, 'headersTimeoutMs' | 'requestTimeoutMs' | 'keepAliveTimeoutMs'>>;

/** The caps on connections (MAX_CONNECTIONS, MAX_CONNECTIONS_PER_ADDRESS). */
export type ConnectionLimits = Required<Pick<ServeOptions, 'maxConnections' | 'maxConnectionsPerAddress'>>;

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
   * Stops gracefully (contract-kit's serve): it lingers up to shutdownLingerMs, answering on open
   * connections and new ones with every answer closing its connection and `/readyz` answering
   * 503, then stops listening, finishes the responses in flight, and closes the store and
   * `alsoClose`. Past `graceMs` (shutdownTimeoutMs by default) the connections still open are
   * closed; a second call with a shorter `graceMs` (a second Ctrl+C) cuts the wait short.
   */
  stop(options?: { graceMs?: number }): Promise<void>;
}

/**
 * The one way the service starts and stops, whoever starts it: `npm start` and the release
 * (src/service/main.ts), the sandbox (scripts/sandbox.ts) and the tests (test/support/test-server.ts).
 * Builds the app and serves it with contract-kit's serve: requests Node cannot parse get the
 * contract's Error body, with X-Request-Id, the client address's rate-limit headers and CORS
 * headers for an allowed origin, and a line in the log.
 */
export async function startService(options: ServiceOptions): Promise<RunningService> {
  const { port, host, timeouts, connections, shutdownTimeoutMs, shutdownLingerMs, alsoClose = [], ...dependencies } = options;
  const { logger } = dependencies;
  let stopping = false;
  const { app, ready, answerOf, corsHeaders, endStreams } = createApp({ ...dependencies, stopping: () => stopping });
  const rateLimitHeadersFor = anonymousRateLimitHeaders(dependencies);
  const served = await serve(app, {
    port,
    host,
    headersTimeoutMs: SETTINGS.headersTimeoutMs.default,
    requestTimeoutMs: SETTINGS.requestTimeoutMs.default,
    keepAliveTimeoutMs: SETTINGS.keepAliveTimeoutMs.default,
    ...timeouts,
    maxConnections: SETTINGS.maxConnections.default,
    maxConnectionsPerAddress: SETTINGS.maxConnectionsPerAddress.default,
    ...connections,
    shutdownTimeoutMs: shutdownTimeoutMs ?? SETTINGS.shutdownTimeoutMs.default,
    lingerMs: shutdownLingerMs ?? SETTINGS.shutdownLingerMs.default,
    listeningSockets: LISTENING_SOCKETS,
    bodyLimitBytes: BODY_LIMIT_BYTES,
    signals: [],
    answerOf,
    refusalHeaders: async ({ address, origin }) => {
      let headers: Record<string, string> = {};
      try {
        headers = await rateLimitHeadersFor(address ?? 'unknown');
      } catch (error) {
        logger.warn({ err: error }, 'could not read the rate-limit headers of a refused request');
      }
      // A page on an allowed origin must be able to read this answer too.
      return { 'X-Request-Id': randomUUID(), ...headers, ...corsHeaders(origin) };
    },
    onRefused: ({ status, reason, address }, headers, handedToApp) =>
      logger.info(
        { requestId: headers['x-request-id'], status, reason, ip: address },
        handedToApp ? 'refused: its body is not valid HTTP' : 'refused before routing',
      ),
    // Open streams (GET /pets/feed) end at once: their clients resume from another instance, or this one restarted.
    onStopping: () => {
      stopping = true;
      endStreams();
    },
    onStop: async () => {
      await dependencies.store.close();
      for (const close of alsoClose) await close();
    },
    onWarning: (message) => logger.warn(message),
  });
  return { server: served.server, port: served.port, origin: served.origin, ready, stop: served.stop };
}
