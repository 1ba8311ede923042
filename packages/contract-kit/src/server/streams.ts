import type { Request, Response } from 'express';
import type { OpenApiDocument } from '../contract/document.js';
import { sseJsonContentSchema, type Framing } from '../contract/openapi-3.2.js';
import type { MediaTypeObject, Operation } from '../contract/operations.js';
import type { ContractSchemas } from '../testing/schemas.js';
import { HttpProblem, type KitProblemCode } from './problems.js';

/**
 * Streamed answers (OpenAPI 3.2: a media type with `itemSchema`): a handler's async iterable of
 * items, each checked against `itemSchema` and framed for its media type before it is written.
 */

/** How long a stream cut off for a wrong item has to send the items before it to a client that reads slowly. */
const CUT_GRACE_MS = 5_000;

/** The fields of a server-sent event (HTML, 9.2.6), which an item of `text/event-stream` is. */
const SSE_FIELDS = new Set(['data', 'event', 'id', 'retry']);

/** An event's `data` written as its `data:` lines: a string as it is, any other value as JSON; undefined for what JSON cannot carry. */
function dataLines(data: unknown): string | undefined {
  const text = typeof data === 'string' ? data : (JSON.stringify(data) as string | undefined);
  return text
    ?.split(/\r\n|\r|\n/)
    .map((line) => `data: ${line}\n`)
    .join('');
}

/**
 * An item as its framing writes it, or why it cannot be written: an event with a field SSE has
 * not, or an `event` or `id` that would end its line; a value JSON cannot carry.
 */
function frame(framing: Framing, item: unknown): { text: string } | { wrong: string } {
  if (framing !== 'sse') {
    const json = JSON.stringify(item);
    if (json === undefined) return { wrong: 'is no JSON value' };
    return { text: framing === 'seq' ? `\x1e${json}\n` : `${json}\n` };
  }
  if (item === null || typeof item !== 'object' || Array.isArray(item))
    return { wrong: 'is no event (an object of data, event, id, retry)' };
  const event = item as Record<string, unknown>;
  const other = Object.keys(event).find((key) => !SSE_FIELDS.has(key) && event[key] !== undefined);
  if (other !== undefined) return { wrong: `has ${other}, which no field of a server-sent event is (data, event, id, retry)` };
  let text = '';
  for (const field of ['event', 'id'] as const) {
    const value = event[field];
    if (value === undefined) continue;
    if (typeof value !== 'string' || /[\r\n\0]/.test(value)) return { wrong: `has an ${field} that is no line of text` };
    text += `${field}: ${value}\n`;
  }
  const { retry } = event;
  if (retry !== undefined) {
    if (typeof retry !== 'number' || !Number.isInteger(retry) || retry < 0)
      return { wrong: 'has a retry that is no whole number of milliseconds' };
    text += `retry: ${retry}\n`;
  }
  if (event.data !== undefined) {
    const lines = dataLines(event.data);
    if (lines === undefined) return { wrong: 'has data JSON cannot carry' };
    text += lines;
  }
  return { text: `${text}\n` };
}

/** Why an item may not be sent, or undefined when it may: its schema's refusals, then its framing's. */
function wrongItem(
  doc: OpenApiDocument,
  item: unknown,
  media: MediaTypeObject,
  framing: Framing,
  schemas: ContractSchemas,
): string | undefined {
  const refused = schemas.errors(media.itemSchema, item);
  if (refused.length > 0) return `is not as itemSchema says: ${refused.slice(0, 3).join('; ')}`;
  // An SSE event's JSON data is parsed and checked against its contentSchema too.
  const content = framing === 'sse' ? sseJsonContentSchema(doc, media.itemSchema) : undefined;
  if (content !== undefined && typeof (item as { data?: unknown }).data === 'string') {
    let parsed: unknown;
    try {
      parsed = JSON.parse((item as { data: string }).data);
    } catch {
      return 'has data that is no JSON text, which its contentMediaType says it is';
    }
    const errors = schemas.errors(content, parsed);
    if (errors.length > 0) return `has data not as its contentSchema says: ${errors.slice(0, 3).join('; ')}`;
  }
  return undefined;
}

/** What the streams of a contract server share. */
export interface StreamOptions {
  doc: OpenApiDocument;
  schemas: () => ContractSchemas;
  /** Milliseconds between SSE comments that keep an idle stream's connection open; 0: none. */
  keepAliveMs: number;
  onError: ((error: unknown, problem: HttpProblem, req: Request) => void) | undefined;
}

/** The streams a contract server is sending, which its stop ends. */
export class OpenStreams {
  private readonly open = new Set<() => void>();
  private closing = false;

  constructor(readonly options: StreamOptions) {}

  get count(): number {
    return this.open.size;
  }

  /**
   * Ends every open stream as if its handler had: the handler's signal aborts and its iterator
   * returns. A stream begun after it ends as soon as its headers are sent: the server is stopping.
   */
  endAll(): number {
    this.closing = true;
    const ending = [...this.open];
    for (const end of ending) end();
    return ending.length;
  }

  /**
   * Sends `items` as a stream of media type `essence` (framed as `framing`): the status and
   * headers at once, then each item once its schema and framing allow it, each flushed as it is
   * written; a full socket buffer holds the next item back until it drains. The iterator is
   * stopped (`return`) and `controller` aborted when the client goes away or the server stops.
   * An item that may not be sent, or a failure of the iterator, ends the stream without the
   * item, cut off so the client sees it incomplete, and is told to onError.
   */
  async send(
    req: Request,
    res: Response,
    op: Operation,
    media: MediaTypeObject,
    framing: Framing,
    items: unknown,
    controller: AbortController,
  ): Promise<void> {
    const iterable = items as Partial<AsyncIterable<unknown> & Iterable<unknown>> | null | undefined;
    const iterate = (typeof items !== 'string' ? (iterable?.[Symbol.asyncIterator] ?? iterable?.[Symbol.iterator]) : undefined) as
      ((this: unknown) => AsyncIterator<unknown> | Iterator<unknown>) | undefined;
    if (typeof iterate !== 'function')
      throw new TypeError(`${op.name} answered a stream with a body that is no iterable of items (an async generator, an array)`);
    const iterator = iterate.call(iterable);
    let stopped = false;
    let onStop: (() => void) | undefined;
    const whenStopped = new Promise<IteratorResult<unknown>>((resolve) => (onStop = () => resolve({ done: true, value: undefined })));
    /** Stops the iterator: its signal aborts, and `return` is called (what it throws, at once or later, goes to onError). */
    const stop = (abort = true) => {
      if (stopped) return;
      stopped = true;
      clearInterval(keepAlive);
      if (abort) controller.abort();
      onStop?.();
      const failed = (error: unknown) => this.report(req, `${op.name}'s stream failed as it was stopped`, error);
      try {
        void Promise.resolve(iterator.return?.()).catch(failed);
      } catch (error) {
        failed(error);
      }
    };
    const gone = () => {
      if (!res.writableFinished) stop();
    };
    const end = () => {
      stop();
      if (!res.writableEnded) res.end();
    };
    let keepAlive: NodeJS.Timeout | undefined;
    // A client gone before the handler answered, a HEAD request, a server that is stopping: no item is asked for.
    if (res.destroyed || res.closed || req.method === 'HEAD' || this.closing) {
      stop(res.destroyed || res.closed);
      if (!res.writableEnded && !res.destroyed) res.end();
      return;
    }
    if (framing === 'sse' && !res.hasHeader('Cache-Control')) res.setHeader('Cache-Control', 'no-cache');
    res.flushHeaders();
    res.on('close', gone);
    this.open.add(end);
    if (framing === 'sse' && this.options.keepAliveMs > 0) keepAlive = setInterval(() => res.write(':\n\n'), this.options.keepAliveMs);
    let position = 0;
    /** Until the items written so far have left the response's buffer: a cut waits for them. */
    let written: Promise<void> | undefined;
    try {
      for (;;) {
        // Raced with the stop: a generator waiting on something that ignores its signal is left waiting, not waited for.
        const asked = Promise.resolve(iterator.next());
        asked.catch(() => undefined);
        const next = await Promise.race([asked, whenStopped]);
        if (stopped || next.done === true) break;
        position++;
        const wrong = wrongItem(this.options.doc, next.value, media, framing, this.options.schemas());
        const framed = wrong === undefined ? frame(framing, next.value) : { wrong };
        if ('wrong' in framed) {
          this.cut(req, res, stop, `${op.name} answered a stream whose item ${position} ${framed.wrong}`, undefined, written);
          return;
        }
        let taken = true;
        // Settled once Node has handed the item to the system: a cut after it waits for it.
        written = new Promise<void>((done) => (taken = res.write(framed.text, () => done())));
        if (!taken) await Promise.race([new Promise((drained) => res.once('drain', drained)), whenStopped]);
      }
      // Ended by the handler: its iterator is done, and its signal does not abort.
      if (!stopped) stop(false);
      if (!res.writableEnded && !res.destroyed) res.end();
    } catch (error) {
      // What the iterator throws once the client has gone (an AbortError of its signal) is no failure.
      if (!stopped) this.cut(req, res, stop, `${op.name} failed in its stream after ${position} item(s)`, error, written);
    } finally {
      clearInterval(keepAlive);
      this.open.delete(end);
      res.off('close', gone);
    }
  }

  /** Tells onError of a failure of a stream, as a 500 problem. */
  private report(req: Request, message: string, cause?: unknown): void {
    const problem = new HttpProblem<KitProblemCode>(500, 'internal_error', message, [], {}, { cause });
    this.options.onError?.(cause ?? new Error(message), problem, req);
  }

  /** Ends a stream that may not go on: its iterator stopped, its connection cut, the reason told to onError. */
  private cut(req: Request, res: Response, stop: () => void, message: string, cause?: unknown, written?: Promise<void>): void {
    stop();
    // The items written go out first (Node may still hold them: `written`), then the connection ends
    // without the body's end: the client sees the stream fail. One that reads nothing more is cut off later.
    const { socket } = res;
    if (socket) {
      const destroy = setTimeout(() => socket.destroy(), CUT_GRACE_MS).unref();
      socket.once('close', () => clearTimeout(destroy));
      void (written ?? Promise.resolve()).then(() => socket.end());
    } else res.destroy();
    this.report(req, `${message}: the stream was cut off.`, cause);
  }
}
