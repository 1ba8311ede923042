import type { IncomingMessage, ServerResponse } from 'node:http';

/** The largest request body the kit reads unless told otherwise (contractServer's bodyLimitBytes). */
export const DEFAULT_BODY_LIMIT_BYTES = 1024 * 1024;

/** How long a connection whose request body was not read to its end stays open after its answer. */
const LINGER_MS = 2000;

/**
 * For a request whose body is chunked (of any size) or declared larger than `bodyLimitBytes`
 * (contractServer's, 1 MiB by default):
 * once the answer is sent, if the body has not all arrived, its connection is closed instead of
 * reading on. Node would read to its end whatever part of a body the app did not read, before it
 * reuses the connection: cheap for a body within the limit, unbounded for these. Whatever
 * answered (a 413 once the limit was passed, or a 401, 404, 405, 415 or 429 given before the
 * body was read), the unread rest stays unread: the connection stops reading (the client's
 * sending stalls), sends its end after the answer, and is destroyed 2 s later, or when the
 * client closes it first. Destroying it at once would reset a connection with unread data, and
 * a client still sending would lose the answer with the reset. Call it from the HTTP server's
 * 'request' event, for every request.
 */
export function closeUnreadBody(req: IncomingMessage, res: ServerResponse, bodyLimitBytes = DEFAULT_BODY_LIMIT_BYTES): void {
  const { headers } = req;
  if (headers['transfer-encoding'] === undefined && !(Number(headers['content-length'] ?? 0) > bodyLimitBytes)) return;
  // Node reads on (discards) a body nobody started to read; one read from it makes it the
  // app's, which Node then leaves unread past what the stream buffers.
  req.read(0);
  res.once('finish', () => {
    const { socket } = req;
    // Gone already (the client closed it, or the app destroyed the request).
    if (req.complete || !socket) return;
    socket.end();
    const linger = setTimeout(() => socket.destroy(), LINGER_MS);
    socket.once('close', () => clearTimeout(linger));
  });
}
