import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnyHandler } from 'contract-kit';
import { serve } from './serve.js';
import { createApiClient, createOperations, createStreams } from './types/notes/client.js';
import { readItems, stream, StreamRefused } from './types/notes/streams.js';

/** A body that arrives in these chunks. */
const body = (...chunks: string[]) =>
  new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(new TextEncoder().encode(chunk));
      controller.close();
    },
  });

const read = async (stream: AsyncIterable<unknown>) => {
  const items: unknown[] = [];
  for await (const item of stream) items.push(item);
  return items;
};

describe("generate's stream reader", () => {
  it('reads events and JSON values whatever the chunks they arrive in', async () => {
    expect(
      await read(readItems(body('event: a\r', '\ndata: x\r\n', 'data: y\r\n\r\n', ': kept alive\n\nid: 7\nretry: 50\ndata: z\n\n'), 'sse')),
    ).toEqual([
      { event: 'a', data: 'x\ny' },
      { id: '7', retry: 50, data: 'z' },
    ]);
    expect(await read(readItems(body('{"a":1}\n{"a"', ':2}\n{"a":3}'), 'lines'))).toEqual([{ a: 1 }, { a: 2 }, { a: 3 }]);
    expect(await read(readItems(body('\x1e{"a":1}\n\x1e', '{"a":2}\n'), 'seq'))).toEqual([{ a: 1 }, { a: 2 }]);
  });
});

/** The Last-Event-ID of each request to the feed, and how many of its streams ended by the client. */
const asked: (string | undefined)[] = [];
const feed = { endEach: 2, stopped: 0 };

const handlers: Record<string, AnyHandler> = {
  // Two events a connection, then the end: a client that resumes gets them all, once each.
  followNotes: ({ headers }) => {
    const after = headers['Last-Event-ID'] as string | undefined;
    asked.push(after);
    return {
      status: 200,
      body: (async function* () {
        try {
          for (let id = Number(after ?? 0) + 1, sent = 0; sent < feed.endEach; id++, sent++) {
            yield { event: 'added', id: String(id), data: JSON.stringify({ id, text: `note ${id}` }) };
            await sleep(5);
          }
        } finally {
          feed.stopped++;
        }
      })(),
    };
  },
  exportNotes: () => ({
    status: 200,
    body: [
      { id: 1, text: 'one' },
      { id: 2, text: 'two' },
    ],
  }),
  // The texts of the items it read, and when the first came: before the body's end, or after.
  importNotes: async ({ body }) => {
    const texts: string[] = [];
    for await (const note of body as AsyncIterable<{ text: string }>) {
      texts.push(note.text);
      if (texts.length === 1) imported.firstBeforeEnd = !imported.ended;
    }
    imported.texts = texts;
    return { status: 204 };
  },
  queryNotes: () => ({ status: 200 }),
  linkNote: () => ({ status: 204 }),
};

/** What importNotes read. */
const imported = { texts: [] as string[], ended: false, firstBeforeEnd: false };

let notes: Awaited<ReturnType<typeof serve>>;
beforeAll(async () => {
  notes = await serve('notes-3.2.yaml', { handlers, warmUp: 'lazy' });
});
afterAll(() => notes.close());

describe("generate's stream reader, on answers of its own making", () => {
  const answer = (body: string, type: string) => () =>
    Promise.resolve({ response: new Response(body, { headers: { 'Content-Type': type } }) });

  it("parses an event's data where its itemSchema types it as JSON, and refuses an answer that is no stream", async () => {
    const events = stream(answer('data: {"id":1}\n\n', 'text/event-stream'), 'sse', false, { jsonData: true });
    expect(await read(events)).toEqual([{ data: { id: 1 } }]);
    const json = await read(stream(answer('{"id":1}', 'application/json'), 'sse', true)).catch((error: unknown) => error);
    expect(json).toBeInstanceOf(StreamRefused);
    expect(String(json)).toMatch(/an answer of application\/json, not a stream of text\/event-stream/);
  });
});

describe("generate's createStreams, against the kit", () => {
  it('gives each item typed, and resumes an event stream from its last event, losing none and repeating none', async () => {
    const streams = createStreams(createApiClient(`${notes.origin}/api`));
    const ids: number[] = [];
    for await (const event of streams.followNotes(undefined, { lastEventId: '0' })) {
      const note = JSON.parse(event.data) as { id: number };
      expect(event.id).toBe(String(note.id));
      ids.push(note.id);
      if (ids.length === 6) break;
    }
    expect(ids).toEqual([1, 2, 3, 4, 5, 6]);
    expect(asked).toEqual(['0', '2', '4']);
    const exported = [];
    for await (const note of streams.exportNotes()) exported.push(note.text);
    expect(exported).toEqual(['one', 'two']);
  });

  it('throws StreamRefused for a refusal, with its status and body, and does not ask again', async () => {
    const streams = createStreams(createApiClient(`${notes.origin}/api`));
    asked.length = 0;
    const refused = await read(streams.followNotes({ params: { header: { 'Last-Event-ID': 'abc' } } })).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(StreamRefused);
    expect((refused as StreamRefused).status).toBe(400);
    expect((refused as StreamRefused).body).toMatch(/Last-Event-ID/i);
    expect(asked).toEqual([]);
  });

  it("ends the request when the loop is left: the server's iterator stops", async () => {
    feed.endEach = 1_000_000;
    const stopped = feed.stopped;
    try {
      const streams = createStreams(createApiClient(`${notes.origin}/api`));
      for await (const event of streams.followNotes()) if (event.id === '3') break;
      const left = Date.now();
      while (feed.stopped === stopped && Date.now() - left < 1000) await sleep(5);
      expect(feed.stopped).toBe(stopped + 1);
    } finally {
      feed.endEach = 2;
    }
  });

  it('sends a streamed request from an array, or from an async iterable item by item as it comes', async () => {
    const streams = createStreams(createApiClient(`${notes.origin}/api`));
    const sent = await streams.importNotes([{ text: 'one' }, { text: 'two', pinned: null }]);
    expect(sent.response.status).toBe(204);
    expect(imported.texts).toEqual(['one', 'two']);
    imported.ended = false;
    const later = streams.importNotes(
      (async function* () {
        yield { text: 'first' };
        // The server reads the first item while this one is still to come.
        await sleep(200);
        imported.ended = true;
        yield { text: 'second' };
      })(),
    );
    expect((await later).response.status).toBe(204);
    expect(imported).toMatchObject({ texts: ['first', 'second'], firstBeforeEnd: true });
    const refused = await streams.importNotes([{ text: 'one' }, { text: '' }]);
    expect(refused.response.status).toBe(400);
  });

  it('calls a QUERY and an additionalOperations method (LINK) by their names, typed', async () => {
    const operations = createOperations(createApiClient(`${notes.origin}/api`));
    expect((await operations.queryNotes({ body: {} })).response.status).toBe(200);
    const linked = await operations.linkNote({ params: { path: { noteId: 7 } } });
    expect([linked.response.status, linked.response.url]).toEqual([204, `${notes.origin}/api/notes/7`]);
    // @ts-expect-error its path parameter is an integer
    expect((await operations.linkNote({ params: { path: { noteId: 'seven' } } })).response.status).toBe(400);
  });
});
