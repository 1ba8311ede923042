// Written by `contract-kit generate` (a copy of contract-kit's client/streams.ts). Do not edit it by hand: run it again.

/**
 * The items of streamed answers (OpenAPI 3.2 `itemSchema`) as a client reads them, in a browser
 * or in Node: server-sent events, JSON Lines, JSON text sequences. client.ts's `createStreams`
 * gives each streamed operation of the contract, typed; this is what it runs.
 */

/** How a stream's items are framed: server-sent events, JSON Lines (and NDJSON), JSON text sequences (RFC 7464). */
export type Framing = 'sse' | 'lines' | 'seq';

/** A server-sent event as it arrives: its fields (HTML, 9.2.6), `data` lines joined by line breaks. */
export interface ServerSentEvent {
  data?: string;
  event?: string;
  id?: string;
  retry?: number;
}

/** An answer that was no stream: a refusal or a failure, with the body the server gave. */
export class StreamRefused extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
  ) {
    super(`the stream was answered ${status}: ${body.slice(0, 300)}`);
    this.name = 'StreamRefused';
  }
}

/** The server-sent events of a body, one by one (comments and events without a field left out). */
async function* events(text: AsyncIterable<string>): AsyncGenerator<ServerSentEvent> {
  let buffer = '';
  let event: ServerSentEvent = {};
  let fields = 0;
  for await (const chunk of text) {
    buffer += chunk;
    // A line ends at CR LF, LF or CR; a CR last in the buffer may be the first half of a CR LF.
    let end: RegExpExecArray | null;
    while ((end = /\r\n|\n|\r(?!$)/.exec(buffer)) !== null) {
      const line = buffer.slice(0, end.index);
      buffer = buffer.slice(end.index + end[0].length);
      if (line === '') {
        if (fields > 0) yield event;
        event = {};
        fields = 0;
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'data') event.data = event.data === undefined ? value : `${event.data}\n${value}`;
      else if (field === 'event') event.event = value;
      else if (field === 'id' && !value.includes('\0')) event.id = value;
      else if (field === 'retry' && /^\d+$/.test(value)) event.retry = Number(value);
      else continue;
      fields++;
    }
  }
}

/** The JSON values of a body, each ended by `separator` (a line break; a sequence's record separator begins each). */
async function* values(text: AsyncIterable<string>, framing: 'lines' | 'seq'): AsyncGenerator<unknown> {
  const separator = framing === 'seq' ? '\x1e' : '\n';
  let buffer = '';
  const parsed = (part: string) => (part.trim() === '' ? [] : [JSON.parse(part) as unknown]);
  for await (const chunk of text) {
    buffer += chunk;
    const parts = buffer.split(separator);
    buffer = parts.pop()!;
    for (const part of parts) yield* parsed(part);
  }
  // A last line without its line break; a sequence's last record.
  yield* parsed(buffer);
}

/** The items of a streamed body: events for `sse`, JSON values otherwise. */
export function readItems(body: ReadableStream<Uint8Array>, framing: Framing): AsyncGenerator<unknown> {
  const text = body.pipeThrough(
    new TextDecoderStream() as unknown as TransformStream<Uint8Array, string>,
  ) as unknown as AsyncIterable<string>;
  return framing === 'sse' ? events(text) : values(text, framing);
}

/** How a stream is read. */
export interface StreamOptions {
  /** An SSE stream whose events' `data` is JSON to parse (its itemSchema types it as no string): client.ts says. */
  jsonData?: boolean;
  /** Stops the stream: the request is aborted and the iteration ends. */
  signal?: AbortSignal;
  /** Where an SSE stream resumes: sent as Last-Event-ID on the first request. */
  lastEventId?: string;
}

/** A request of a streamed operation: openapi-fetch's call with `parseAs: 'stream'`, these headers and signal. */
export type SendStream = (headers: Record<string, string>, signal: AbortSignal) => Promise<{ response: Response; error?: unknown }>;

/** How long a client waits before it reconnects to an event stream, unless the server says (`retry`). */
const RECONNECT_MS = 1_000;
/** The least a client waits before it reconnects, whatever the server says; doubled after each attempt that brought no item, up to 64 times. */
const LEAST_WAIT_MS = 100;

/** The media types of each framing, as an answer's Content-Type names them. */
const MEDIA_TYPES: Record<Framing, readonly string[]> = {
  sse: ['text/event-stream'],
  lines: ['application/jsonl', 'application/x-ndjson'],
  seq: ['application/json-seq'],
};

/** Waits `ms`, or less if `signal` aborts first. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

/**
 * The items of a streamed answer. With `reconnect` (an SSE operation that takes Last-Event-ID),
 * a stream that ends or fails is asked for again, from the last event's id, after the server's
 * `retry` (1 s by default; at least 100 ms, doubled after each attempt that brought no item, and
 * up to half as long again at random), until the signal aborts or the loop stops; so is one
 * answered 5xx. A refusal (another status not 2xx), or an answer that is no stream of its media
 * type, ends it with StreamRefused. Leaving the loop aborts the request.
 */
export async function* stream<T>(send: SendStream, framing: Framing, reconnect: boolean, options: StreamOptions = {}): AsyncGenerator<T> {
  const stopped = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, stopped.signal]) : stopped.signal;
  let lastEventId = options.lastEventId;
  let wait = RECONNECT_MS;
  let fruitless = 0;
  try {
    for (;;) {
      let items = 0;
      try {
        const { response, error } = await send(lastEventId === undefined ? {} : { 'Last-Event-ID': lastEventId }, signal);
        // openapi-fetch has read a refusal's body: its `error`, parsed where it was JSON.
        if (!response.ok || !response.body)
          throw new StreamRefused(response.status, typeof error === 'string' ? error : (JSON.stringify(error) ?? ''));
        const type = response.headers.get('content-type')?.split(';')[0]?.trim().toLowerCase() ?? '';
        if (!MEDIA_TYPES[framing].includes(type))
          throw new StreamRefused(
            response.status,
            `an answer of ${type || 'no media type'}, not a stream of ${MEDIA_TYPES[framing].join(' or ')}`,
          );
        for await (const item of readItems(response.body, framing)) {
          const event = item as ServerSentEvent;
          if (framing === 'sse' && event.id !== undefined) lastEventId = event.id;
          if (framing === 'sse' && event.retry !== undefined) wait = event.retry;
          items++;
          yield (options.jsonData && event.data !== undefined ? { ...event, data: JSON.parse(event.data) as unknown } : item) as T;
        }
      } catch (error) {
        // Stopped by its signal: the stream ends, as an EventSource's close() ends it.
        if (signal.aborted) return;
        // A server failing for now (5xx) is asked again, as a stream that broke off is; a refusal is final.
        if (!reconnect || (error instanceof StreamRefused && error.status < 500)) throw error;
      }
      if (!reconnect) return;
      fruitless = items > 0 ? 0 : fruitless + 1;
      // Up to half as long again at random: the clients of a server that stopped do not all come back at once.
      await pause(Math.max(wait, LEAST_WAIT_MS) * 2 ** Math.min(fruitless, 6) * (1 + Math.random() / 2), signal);
      if (signal.aborted) return;
    }
  } finally {
    stopped.abort();
  }
}

/** How a streamed request's items are framed: JSON Lines (and NDJSON), or JSON text sequences. */
export type RequestFraming = 'lines' | 'seq';

/** One item as its framing writes it: a JSON line, or a record separator and a JSON text and a line break. */
const framedItem = (item: unknown, framing: RequestFraming) => `${framing === 'seq' ? '\x1e' : ''}${JSON.stringify(item)}\n`;

/**
 * The body of a streamed request of `items`: the whole text for an array or another iterable
 * (sent as any body is); a stream for an async iterable, each item written as it comes (Node's
 * fetch sends it as it is made; a browser's only over HTTP/2, with `duplex: 'half'`, which
 * client.ts passes).
 */
export function framedBody(
  items: Iterable<unknown> | AsyncIterable<unknown>,
  framing: RequestFraming,
): string | ReadableStream<Uint8Array> {
  if (Symbol.iterator in items) return Array.from(items, (item) => framedItem(item, framing)).join('');
  const encoder = new TextEncoder();
  const iterator = items[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await iterator.next();
      if (next.done) controller.close();
      else controller.enqueue(encoder.encode(framedItem(next.value, framing)));
    },
    async cancel() {
      await iterator.return?.();
    },
  });
}
