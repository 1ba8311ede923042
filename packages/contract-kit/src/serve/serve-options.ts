import type { Server } from 'node:http';
import type { ValidatorsReady } from '../server/warm-up.js';
import type { Stop } from './graceful-stop.js';
import type { UnparsedOptions } from './unparsed.js';

/** The defaults of ServeOptions. */
export const SERVE_DEFAULTS = {
  port: 3000,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  shutdownTimeoutMs: 10_000,
  lingerMs: 0,
  maxConnections: 10_000,
  maxConnectionsPerAddress: 256,
  listeningSockets: 1,
} as const;

/** How {@link serve} listens, refuses and stops. Those with an environment variable are read by serveOptionsFromEnv. */
export interface ServeOptions extends Omit<UnparsedOptions, 'onWarning'> {
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
  /**
   * How long a stop goes on answering, on open connections and new ones, each answer closing its
   * connection, before it stops listening; it ends once no connection is open (SHUTDOWN_LINGER_MS).
   * It saves the requests already sent on a kept-alive connection from a reset. @default 0
   */
  lingerMs?: number;
  /**
   * Connections held at once (MAX_CONNECTIONS); a new one beyond it takes the place of the one
   * idle longest, never one being answered. @default 10000
   */
  maxConnections?: number;
  /** Connections one client address (an IPv6 /64) may hold; 0 for no cap (MAX_CONNECTIONS_PER_ADDRESS). @default 256 */
  maxConnectionsPerAddress?: number;
  /**
   * Sockets listening on the port (SO_REUSEPORT where the system has it): each accepts one new
   * connection per turn of the event loop, so a burst of them is taken this many at a time. @default 1
   */
  listeningSockets?: number;
  /** The largest request body the app reads, for closeUnreadBody: give contractServer's bodyLimitBytes. @default 1 MiB */
  bodyLimitBytes?: number;
  /** The signals that stop the server and then end the process (exit 0, or 1 if `onStop` failed); [] for none. @default ['SIGTERM', 'SIGINT'] */
  signals?: readonly NodeJS.Signals[];
  /** Run as a stop begins (a readiness check may answer 503 from then on). */
  onStopping?: () => void;
  /** Run once the server has stopped, before the process exits on a signal: close what the app opened (a database pool). */
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
  /** Connections open now. */
  readonly connections: number;
  /**
   * Stops: after lingerMs (see there), no new connection is accepted, idle ones are closed, the
   * requests in flight are answered (each answer then closes its connection), onStop runs, and
   * past `graceMs` (shutdownTimeoutMs by default) the connections still open are closed. Calling
   * it again returns the same promise; with a shorter `graceMs` (a second signal) it cuts the
   * wait short.
   */
  stop: Stop;
}
