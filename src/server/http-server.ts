import { createServer, IncomingMessage, ServerResponse, type Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Express } from 'express';

/** Timeouts that keep slow or idle clients from holding connections. */
export const HTTP_TIMEOUTS = { headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, keepAliveTimeoutMs: 5_000 } as const;

function sendRaw(socket: Socket, status: number, reason: string, body: object): void {
  const text = JSON.stringify(body);
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
  );
}

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
 * contract's Error body too: headers over the size limit (431) and malformed HTTP (400).
 */
export function createHttpServer(app: Express): Server {
  const server = createServer(
    {
      IncomingMessage: withPrototype(IncomingMessage, app.request),
      ServerResponse: withPrototype(ServerResponse, app.response),
    },
    app,
  );
  server.headersTimeout = HTTP_TIMEOUTS.headersTimeoutMs;
  server.requestTimeout = HTTP_TIMEOUTS.requestTimeoutMs;
  server.keepAliveTimeout = HTTP_TIMEOUTS.keepAliveTimeoutMs;
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    if (!socket.writable) return socket.destroy();
    if (error.code === 'HPE_HEADER_OVERFLOW') {
      return sendRaw(socket, 431, 'Request Header Fields Too Large', {
        code: 'request_header_fields_too_large',
        message: 'The request headers are larger than the service accepts.',
        status: 431,
      });
    }
    if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT' || error.code === 'ECONNRESET') return socket.destroy();
    sendRaw(socket, 400, 'Bad Request', { code: 'invalid_request', message: 'The request is not valid HTTP.', status: 400 });
  });
  return server;
}
