import { connect } from 'node:net';

/** A response read off the socket, byte for byte, before any client library normalised it. */
export interface RawResponse {
  status: number;
  /** Every header line in order, names lower-cased. */
  headerLines: [string, string][];
  /** The headers as fetch's Headers (repeated names joined), for the contract checker. */
  headers: Headers;
  body: string;
}

/** What came back on one connection: a response, or the server closing it without one. */
export type RawOutcome =
  { kind: 'response'; response: RawResponse; raw: Buffer; partsWritten: number } | { kind: 'closed'; partsWritten: number };

/** One request written by hand: every header line as given, duplicates and odd spellings kept. */
export interface RawRequest {
  method: string;
  /** Path and query exactly as written on the request line. */
  target: string;
  headers?: [string, string][];
  body?: string | Buffer;
  /** Adds `Content-Length` for the body unless a header line already sets it or chunked is used. @default true */
  contentLength?: boolean;
  /** Adds `Host: <the origin's host>` as the first header line. @default true */
  host?: boolean;
  /** The HTTP version of the request line. @default '1.1' */
  version?: '1.0' | '1.1';
}

/** The bytes of a request: request line, Host, the header lines, Connection: close, the body. */
export function requestBytes(origin: string, request: RawRequest): Buffer {
  const url = new URL(origin);
  const body = typeof request.body === 'string' ? Buffer.from(request.body) : (request.body ?? Buffer.alloc(0));
  const lines = [`${request.method} ${request.target} HTTP/${request.version ?? '1.1'}`];
  if (request.host !== false) lines.push(`Host: ${url.host}`);
  for (const [name, value] of request.headers ?? []) lines.push(`${name}: ${value}`);
  const sets = (name: string) => (request.headers ?? []).some(([n]) => n.toLowerCase() === name);
  if (request.contentLength !== false && request.body !== undefined && !sets('content-length') && !sets('transfer-encoding')) {
    lines.push(`Content-Length: ${body.length}`);
  }
  lines.push('Connection: close', '', '');
  return Buffer.concat([Buffer.from(lines.join('\r\n'), 'latin1'), body]);
}

/** Parses the responses to pipelined requests, one after another on one connection (each with Content-Length). */
export function parseResponses(raw: Buffer): RawResponse[] {
  const responses: RawResponse[] = [];
  let rest = raw;
  while (rest.length > 0) {
    const response = parseResponse(rest);
    responses.push(response);
    const headEnd = rest.indexOf('\r\n\r\n') + 4;
    rest = rest.subarray(headEnd + Number(response.headers.get('content-length') ?? rest.length));
  }
  return responses;
}

/** Parses one HTTP/1.1 response (Content-Length, chunked, or read to the end). */
function parseResponse(raw: Buffer): RawResponse {
  const end = raw.indexOf('\r\n\r\n');
  if (end < 0) throw new Error(`not an HTTP response: ${JSON.stringify(raw.subarray(0, 200).toString('latin1'))}`);
  const [statusLine, ...lines] = raw.subarray(0, end).toString('latin1').split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? '')?.[1]);
  const headerLines = lines.map((line): [string, string] => {
    const colon = line.indexOf(':');
    return [line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()];
  });
  const headers = new Headers();
  for (const [name, value] of headerLines) headers.append(name, value);
  let rest = raw.subarray(end + 4);
  if (headers.get('transfer-encoding')?.toLowerCase() === 'chunked') {
    const parts: Buffer[] = [];
    for (;;) {
      const lineEnd = rest.indexOf('\r\n');
      const size = parseInt(rest.subarray(0, lineEnd).toString('latin1'), 16);
      if (!size) break;
      parts.push(rest.subarray(lineEnd + 2, lineEnd + 2 + size));
      rest = rest.subarray(lineEnd + 4 + size);
    }
    rest = Buffer.concat(parts);
  } else if (headers.get('content-length') !== null) {
    rest = rest.subarray(0, Number(headers.get('content-length')));
  }
  return { status, headerLines, headers, body: rest.toString('utf8') };
}

/**
 * Opens a connection to `origin`, writes `parts` (waiting `gapMs` between them, as a slow
 * client does), and reads until the server closes the connection; says how many parts were
 * written before it did. A write the server refused
 * (it answered early and closed) is not an error: what it answered is returned.
 */
export function exchange(origin: string, parts: Buffer[], gapMs = 0): Promise<RawOutcome> {
  const url = new URL(origin);
  return new Promise((resolve, reject) => {
    let partsWritten = 0;
    const chunks: Buffer[] = [];
    let done = false;
    const socket = connect(Number(url.port), url.hostname);
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      const raw = Buffer.concat(chunks);
      if (raw.length === 0) return resolve({ kind: 'closed', partsWritten });
      try {
        resolve({ kind: 'response', response: parseResponse(raw), raw, partsWritten });
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    };
    // A server answers or closes in milliseconds (the slow clients' timeouts are under a second):
    // 20 s only bounds one that does neither.
    const timer = setTimeout(() => {
      socket.destroy();
      if (!done) reject(new Error(`no answer from ${origin} within 20 s`));
      done = true;
    }, 20_000);
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('end', finish);
    socket.on('close', finish);
    socket.on('error', () => finish());
    const writeParts = async () => {
      for (const [i, part] of parts.entries()) {
        if (i > 0 && gapMs > 0) await new Promise((r) => setTimeout(r, gapMs));
        if (socket.destroyed || socket.writableEnded) return;
        socket.write(part);
        partsWritten++;
      }
    };
    socket.on('connect', () => void writeParts());
  });
}

/** Sends one hand-written request and returns the response; fails if the server sent none. */
export async function rawRequest(origin: string, request: RawRequest): Promise<RawResponse> {
  const outcome = await exchange(origin, [requestBytes(origin, request)]);
  if (outcome.kind === 'closed') throw new Error(`${request.method} ${request.target}: the server closed the connection without answering`);
  return outcome.response;
}
