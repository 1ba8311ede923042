import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { HttpProblem, problemDetails, type ProblemResponse } from '../server/problems.js';
import type { HeldConnections } from './connection-cap.js';

/** A request Node could not parse, refused before any app saw it. */
export interface UnparsedRequest {
  /** 431: its headers are over Node's limit; 400: it is not valid HTTP (a body's broken framing included). */
  status: 400 | 431;
  /** Node's error code (HPE_INVALID_CHUNK_SIZE, HPE_HEADER_OVERFLOW...). */
  reason: string;
  /** The connection's client address. */
  address: string | undefined;
  /** The Origin header, read from the bytes received (the first 16 KiB), for CORS headers. */
  origin: string | undefined;
}

/** How {@link refuseUnparsed} answers: the body, the headers, and who is told. */
export interface UnparsedOptions {
  /** The body of a refusal: give contractServer's `answerOf` for the contract's error body. @default RFC 9457 problem details */
  answerOf?: (problem: HttpProblem) => ProblemResponse | null;
  /** Headers of a refusal (a request id, rate-limit or CORS headers); an answer the app began keeps the headers it set. */
  refusalHeaders?: (request: UnparsedRequest) => Record<string, string> | Promise<Record<string, string>>;
  /**
   * Told of each refusal, with the headers it went with (names in lower case), and whether Node
   * had handed the request to the app (its body broke the framing) or refused it before.
   */
  onRefused?: (request: UnparsedRequest, headers: Record<string, string>, handedToApp: boolean) => void;
  onWarning: (message: string) => void;
}

const REASON: Record<number, string> = { 400: 'Bad Request', 431: 'Request Header Fields Too Large' };

const PROBLEMS = {
  431: () => new HttpProblem(431, 'request_header_fields_too_large', 'The request headers are larger than the service accepts.'),
  400: () =>
    new HttpProblem(400, 'invalid_request', 'The request is not valid HTTP.', [{ field: 'request', message: 'is not valid HTTP/1.1' }]),
};

/** The Origin header of the bytes Node received (its clientError's `rawPacket`), or undefined. */
function originOf(rawPacket: Buffer | undefined): string | undefined {
  if (!rawPacket) return undefined;
  const match = /\r\norigin:([^\r\n]*)/i.exec(rawPacket.subarray(0, 16 * 1024).toString('latin1'));
  return match ? match[1]!.trim() : undefined;
}

const lowerCased = (headers: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), String(value)]));

/**
 * Node's clientError, answered: headers too large get 431, what is not HTTP 400, each with the
 * body and headers of `options`; a timed-out or reset connection is closed without an answer.
 * Node's parser stays broken once it failed and reports it again for each later read: the first
 * report is answered, the others ignored.
 */
export function refuseUnparsed(connections: HeldConnections, options: UnparsedOptions) {
  const refused = new WeakSet<Socket>();
  return (error: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Socket): void => {
    if (refused.has(socket)) return;
    if (!socket.writable || error.code === 'ERR_HTTP_REQUEST_TIMEOUT' || error.code === 'ECONNRESET') return void socket.destroy();
    refused.add(socket);
    const status = error.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
    const request = {
      status,
      reason: error.code ?? error.message,
      address: socket.remoteAddress,
      origin: originOf(error.rawPacket),
    } as const;
    void refuse(socket, request, connections, options);
  };
}

/**
 * Writes a refusal. A request whose body broke HTTP's framing was already handed to the app,
 * which waits for the rest of its body: the refusal is its answer, at once. A request Node
 * refused before handing it over gets it after any answer still being written on the connection
 * (a pipelined client would take the refusal for that answer, and might repeat what was done).
 */
async function refuse(socket: Socket, request: UnparsedRequest, connections: HeldConnections, options: UnparsedOptions) {
  const inFlight = connections.responding(socket);
  const broken = inFlight && !inFlight.req.complete ? inFlight : undefined;
  // An answer the app began cannot be ended otherwise.
  if (broken?.headersSent) return void socket.destroy();
  let headers: Record<string, string> = {};
  try {
    headers = (await options.refusalHeaders?.(request)) ?? {};
  } catch (error) {
    options.onWarning(`the headers of a refused request could not be made: ${String(error)}`);
  }
  const answer = (options.answerOf ?? ((p) => problemDetails(p, { contentType: 'application/problem+json', instance: '' })))(
    PROBLEMS[request.status](),
  );
  const body = answer === null ? '' : typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
  const type: Record<string, string> = answer === null ? {} : { 'Content-Type': answer.contentType };
  if (broken) return answerInstead(broken, request, { headers, type }, body, options);
  if (inFlight && !inFlight.writableFinished && !inFlight.destroyed) {
    await new Promise<void>((resolve) => {
      inFlight.once('finish', resolve);
      inFlight.once('close', resolve);
    });
  }
  if (!socket.writable) return void socket.destroy();
  options.onRefused?.(request, lowerCased(headers), false);
  const lines = [
    `HTTP/1.1 ${request.status} ${REASON[request.status]}`,
    ...Object.entries({ ...headers, ...type }).map(([name, value]) => `${name}: ${value}`),
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
  ];
  socket.end(`${lines.join('\r\n')}\r\n\r\n${body}`);
}

/**
 * A refusal as the answer of the request whose body broke, through its own response: Node sends
 * it after any answer pipelined before it, and closes the connection. What the app set stays;
 * the refusal's headers fill in the rest.
 */
function answerInstead(
  res: ServerResponse,
  request: UnparsedRequest,
  { headers, type }: { headers: Record<string, string>; type: Record<string, string> },
  body: string,
  options: UnparsedOptions,
) {
  // The app answered meanwhile (a 401 before the body): that answer closes the connection.
  if (res.headersSent) return;
  for (const [name, value] of Object.entries(headers)) if (!res.hasHeader(name)) res.setHeader(name, value);
  if (res.hasHeader('content-type')) res.removeHeader('content-type');
  options.onRefused?.(request, lowerCased(res.getHeaders()), true);
  res.writeHead(request.status, { ...type, 'Content-Length': Buffer.byteLength(body), Connection: 'close' });
  res.end(body);
}
