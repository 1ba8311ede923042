import { randomUUID } from 'node:crypto';
import { createServer, IncomingMessage, ServerResponse, type Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Express } from 'express';
import type { Logger } from 'pino';

/** Timeouts that keep slow or idle clients from holding connections, in milliseconds. */
export interface HttpTimeouts {
  /** A client must have sent every header line within this long, or the connection is closed. */
  headersTimeoutMs: number;
  /** A client must have sent the whole request (headers and body) within this long. */
  requestTimeoutMs: number;
  /** An idle keep-alive connection is closed after this long. */
  keepAliveTimeoutMs: number;
}

/** The timeouts of a server that is given none. */
export const HTTP_TIMEOUTS: HttpTimeouts = { headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, keepAliveTimeoutMs: 5_000 };

/** Options of {@link createHttpServer}. */
export interface HttpServerOptions {
  /** @default HTTP_TIMEOUTS */
  timeouts?: Partial<HttpTimeouts>;
  /**
   * The X-RateLimit-* headers for a client address, read without counting, for the answers to
   * requests Node refuses before the app sees them (see anonymousRateLimitHeaders).
   */
  rateLimitHeadersFor: (address: string) => Promise<Record<string, string>>;
  /** Logs one line per refused request. */
  logger?: Logger;
}

const REASON: Record<number, string> = { 400: 'Bad Request', 431: 'Request Header Fields Too Large' };

/**
 * A constructor for Node's http server whose instances are already `app.request` (or
 * `app.response`) objects: the prototype is set once, here, instead of Express swapping the
 * prototype of every request and response (express/lib/application.js, `app.handle`), which
 * V8 punishes on every later property access (expressjs/express#5998). Express's own
 * `Object.setPrototypeOf` then finds the prototype in place and changes nothing.
 */
function withPrototype<T extends typeof IncomingMessage | typeof ServerResponse>(base: T, prototype: object): T {
  const init = base as unknown as (this: object, ...args: unknown[]) => void;
  function Constructed(this: object, ...args: unknown[]) {
    init.apply(this, args);
  }
  Constructed.prototype = prototype;
  return Constructed as unknown as T;
}

/**
 * The HTTP server around the app. Requests Node refuses before Express sees them get the
 * contract's Error body too, with X-Request-Id and the rate-limit headers of the client address:
 * headers over the size limit (431) and malformed HTTP (400). A client that sends its headers or
 * its request slower than the timeouts allow has its connection closed without an answer.
 */
export function createHttpServer(app: Express, options: HttpServerOptions): Server {
  const timeouts = { ...HTTP_TIMEOUTS, ...options.timeouts };
  // Node enforces the two request timeouts only when it checks its connections (every 30 s by
  // default), which would let a slow client hold a connection up to 30 s past them.
  const connectionsCheckingIntervalMs = Math.max(10, Math.min(1000, Math.floor(Math.min(timeouts.headersTimeoutMs, timeouts.requestTimeoutMs) / 4)));
  const server = createServer(
    {
      connectionsCheckingInterval: connectionsCheckingIntervalMs,
      IncomingMessage: withPrototype(IncomingMessage, app.request),
      ServerResponse: withPrototype(ServerResponse, app.response),
    },
    app,
  );
  server.headersTimeout = timeouts.headersTimeoutMs;
  server.requestTimeout = timeouts.requestTimeoutMs;
  server.keepAliveTimeout = timeouts.keepAliveTimeoutMs;

  const refuse = async (socket: Socket, status: 400 | 431, body: object, reason: string) => {
    const requestId = randomUUID();
    let headers: Record<string, string> = {};
    try {
      headers = await options.rateLimitHeadersFor(socket.remoteAddress ?? 'unknown');
    } catch (error) {
      options.logger?.warn({ err: error, requestId }, 'could not read the rate-limit headers of a refused request');
    }
    options.logger?.info({ requestId, status, reason, ip: socket.remoteAddress }, 'refused before routing');
    // A pipelined request that Node refuses while the answer to an earlier one is still being
    // written: that answer goes out first, or the client would take this refusal for it (and
    // might repeat a request that was carried out).
    const inFlight = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
    if (inFlight && !inFlight.writableFinished) {
      await new Promise<void>((resolve) => {
        inFlight.once('finish', resolve);
        inFlight.once('close', resolve);
      });
    }
    if (!socket.writable) return socket.destroy();
    const text = JSON.stringify(body);
    const lines = [
      `HTTP/1.1 ${status} ${REASON[status]}`,
      'Content-Type: application/json',
      `Content-Length: ${Buffer.byteLength(text)}`,
      `X-Request-Id: ${requestId}`,
      ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
      'Connection: close',
    ];
    socket.end(`${lines.join('\r\n')}\r\n\r\n${text}`);
  };

  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    if (!socket.writable) return socket.destroy();
    if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT' || error.code === 'ECONNRESET') return socket.destroy();
    if (error.code === 'HPE_HEADER_OVERFLOW') {
      void refuse(
        socket,
        431,
        { code: 'request_header_fields_too_large', message: 'The request headers are larger than the service accepts.', status: 431 },
        error.code,
      );
      return;
    }
    void refuse(
      socket,
      400,
      { code: 'invalid_request', message: 'The request is not valid HTTP.', status: 400, details: [{ field: 'request', message: 'is not valid HTTP/1.1' }] },
      error.code ?? error.message,
    );
  });
  return server;
}
