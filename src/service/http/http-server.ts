import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse, Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Express } from 'express';
import { closeUnreadBody } from 'contract-kit';
import type { Logger } from 'pino';
import { capConnections, type ConnectionLimits, type HeldConnections } from './connection-cap.js';
import { corsResponseHeaders } from './middleware/cors.js';
import { nodeHttp } from '../node-http.js';

/** Timeouts that keep slow or idle clients from holding connections, in milliseconds. */
export interface HttpTimeouts {
  /** A client must have sent every header line within this long, or the connection is closed. */
  headersTimeoutMs: number;
  /** A client must have sent the whole request (headers and body) within this long. */
  requestTimeoutMs: number;
  /** An idle keep-alive connection is closed after this long. */
  keepAliveTimeoutMs: number;
}

/** Options of {@link createHttpServer}. */
export interface HttpServerOptions {
  /** HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS and KEEP_ALIVE_TIMEOUT_MS, as configured. */
  timeouts: HttpTimeouts;
  /** MAX_CONNECTIONS and MAX_CONNECTIONS_PER_ADDRESS, as configured. */
  connections: ConnectionLimits;
  /**
   * The X-RateLimit-* headers for a client address, read without counting, for the answers to
   * requests Node refuses before the app sees them (see anonymousRateLimitHeaders).
   */
  rateLimitHeadersFor: (address: string) => Promise<Record<string, string>>;
  /** Origins allowed to call from a browser (see middleware/cors.ts), so those answers carry CORS headers too. @default none */
  corsOrigins?: readonly string[];
  /** Logs one line per refused request. */
  logger?: Logger;
  /** The largest request body the app reads, in bytes (see contract-kit's closeUnreadBody). */
  bodyLimitBytes: number;
}

const REASON: Record<number, string> = { 400: 'Bad Request', 431: 'Request Header Fields Too Large' };

/**
 * The Origin header of a request Node could not parse, from the bytes it received (the
 * `rawPacket` of its clientError), or undefined. Only the first 16 KiB are searched.
 */
function originOf(rawPacket: Buffer | undefined): string | undefined {
  if (!rawPacket) return undefined;
  const head = rawPacket.subarray(0, 16 * 1024).toString('latin1');
  const match = /\r\norigin:([^\r\n]*)/i.exec(head);
  return match ? match[1]!.trim() : undefined;
}

/** Node's HTTP server around the app, and the connections it holds (what a graceful stop needs of them). */
export interface HttpServer {
  server: Server;
  connections: HeldConnections;
}

/**
 * The HTTP server around the app. Requests Node refuses before Express sees them get the
 * contract's Error body too, with X-Request-Id and the rate-limit headers of the client address:
 * headers over the size limit (431) and malformed HTTP (400), a body's broken framing included.
 * A client that sends its headers or its request slower than the timeouts allow has its
 * connection closed without an answer. Connections are capped by client address and in all (see
 * capConnections).
 */
export function createHttpServer(app: Express, options: HttpServerOptions): HttpServer {
  const { timeouts } = options;
  // Node enforces the two request timeouts only when it checks its connections (every 30 s by
  // default), which would let a slow client hold a connection up to 30 s past them.
  const connectionsCheckingIntervalMs = Math.max(
    10,
    Math.min(1000, Math.floor(Math.min(timeouts.headersTimeoutMs, timeouts.requestTimeoutMs) / 4)),
  );
  // A request without Host goes to the app, which refuses it in the contract's shape (Node: a bare 400).
  const server = nodeHttp.createServer({ connectionsCheckingInterval: connectionsCheckingIntervalMs, requireHostHeader: false }, app);
  // An Expect other than 100-continue: Node alone would answer a bare 417 (no Error body, no
  // X-Request-Id, no rate-limit headers). RFC 9110 (10.1.1) lets a server answer 417 or not; the
  // request is handled as if the expectation were absent, so it gets the answer it asked for.
  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => server.emit('request', req, res));
  server.headersTimeout = timeouts.headersTimeoutMs;
  server.requestTimeout = timeouts.requestTimeoutMs;
  server.keepAliveTimeout = timeouts.keepAliveTimeoutMs;
  const connections = capConnections(server, options.connections);
  server.on('clientError', refuseUnparsed(refuser(options, connections)));
  server.on('request', (req: IncomingMessage, res: ServerResponse) => closeUnreadBody(req, res, options.bodyLimitBytes));
  return { server, connections };
}

/** A request Node could not parse, as it is refused: its status, Error body, and why (for the log). */
interface Refusal {
  status: 400 | 431;
  body: object;
  reason: string;
  rawPacket: Buffer | undefined;
}

/** Sends a refusal's answer on a socket whose request Node could not parse. */
type Refuse = (socket: Socket, refusal: Refusal) => Promise<void>;

/**
 * Answers Node's clientError: a request whose headers are too large gets 431, one that is not
 * HTTP 400; a timed-out or reset connection is closed without an answer. Node's parser stays
 * broken once it failed, and reports the failure again for each later read of the connection:
 * the first report is answered, the others ignored.
 */
function refuseUnparsed(refuse: Refuse) {
  const refused = new WeakSet<Socket>();
  return (error: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Socket): void => {
    if (refused.has(socket)) return;
    if (!socket.writable) return void socket.destroy();
    if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT' || error.code === 'ECONNRESET') return void socket.destroy();
    refused.add(socket);
    const { rawPacket } = error;
    if (error.code === 'HPE_HEADER_OVERFLOW') {
      const body = {
        code: 'request_header_fields_too_large',
        message: 'The request headers are larger than the service accepts.',
        status: 431,
      };
      void refuse(socket, { status: 431, body, reason: error.code, rawPacket });
      return;
    }
    const body = {
      code: 'invalid_request',
      message: 'The request is not valid HTTP.',
      status: 400,
      details: [{ field: 'request', message: 'is not valid HTTP/1.1' }],
    };
    void refuse(socket, { status: 400, body, reason: error.code ?? error.message, rawPacket });
  };
}

/**
 * Writes a refusal with the Error body, X-Request-Id, the client address's rate-limit headers
 * and CORS headers for an allowed origin. A request whose body broke HTTP's framing (a bad chunk
 * size, a chunk line without CR, a chunk extension over Node's limit) was already handed to the
 * app, which waits for the rest of its body: the refusal is its answer, at once. A request Node
 * refused before handing it over gets it after the answer still being written on the connection.
 */
function refuser(options: HttpServerOptions, connections: HeldConnections): Refuse {
  const corsOrigins = options.corsOrigins ?? [];
  return async (socket, { status, body, reason, rawPacket }) => {
    const inFlight = connections.responding(socket);
    // The request still being read is the broken one; an answer the app began cannot be ended.
    const broken = inFlight && !inFlight.req.complete ? inFlight : undefined;
    if (broken?.headersSent) return void socket.destroy();
    let headers: Record<string, string> = {};
    try {
      headers = await options.rateLimitHeadersFor(socket.remoteAddress ?? 'unknown');
    } catch (error) {
      options.logger?.warn({ err: error }, 'could not read the rate-limit headers of a refused request');
    }
    // A page on an allowed origin must be able to read this answer too.
    if (corsOrigins.length > 0) headers = { ...headers, ...corsResponseHeaders(corsOrigins, originOf(rawPacket)) };
    const text = JSON.stringify(body);
    const log = (requestId: string, message: string) =>
      options.logger?.info({ requestId, status, reason, ip: socket.remoteAddress }, message);
    if (broken) return answerInstead(broken, status, headers, text, log);
    const requestId = randomUUID();
    log(requestId, 'refused before routing');
    // A pipelined request that Node refuses while the answer to an earlier one is still being
    // written: that answer goes out first, or the client would take this refusal for it (and
    // might repeat a request that was carried out).
    if (inFlight && !inFlight.writableFinished && !inFlight.destroyed) {
      await new Promise<void>((resolve) => {
        inFlight.once('finish', resolve);
        inFlight.once('close', resolve);
      });
    }
    if (!socket.writable) return void socket.destroy();
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
}

/**
 * A refusal as the answer of the request whose body broke, through its own response: Node sends
 * it after any answer pipelined before it, and closes the connection. What the app set stays
 * (its request id, the key's rate-limit headers); the refusal's headers fill in the rest.
 */
function answerInstead(
  res: ServerResponse,
  status: number,
  headers: Record<string, string>,
  text: string,
  log: (requestId: string, message: string) => void,
): void {
  // The app answered meanwhile (a 401 before the body): that answer closes the connection.
  if (res.headersSent) return;
  const requestId = String(res.getHeader('x-request-id') ?? randomUUID());
  log(requestId, 'refused: its body is not valid HTTP');
  for (const [name, value] of Object.entries(headers)) if (!res.hasHeader(name)) res.setHeader(name, value);
  res.writeHead(status, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(text),
    'X-Request-Id': requestId,
    Connection: 'close',
  });
  res.end(text);
}
