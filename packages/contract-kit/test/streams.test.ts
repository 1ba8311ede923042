import { EventEmitter, on } from 'node:events';
import { request } from 'node:http';
import { gzipSync } from 'node:zlib';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { loadContract, type AnyHandler } from 'contract-kit';
import { conformanceCases, ContractChecker, runConformance } from 'contract-kit/testing';
import { serve } from './serve.js';

type Served = Awaited<ReturnType<typeof serve>>;
let notes: Served;

/** Notes added while a test runs: followNotes sends each as an event. */
const added = new EventEmitter();
/** What the next exportNotes streams, and what became of its iterator. */
let exported: () => AsyncGenerator<unknown> | unknown[] = () => [];
const iterators = { made: 0, finished: 0, produced: 0, finishedAt: 0 };
/** The notes importNotes read, each as it was read. */
const imported: string[] = [];
const importing = new EventEmitter();
/** Events followNotes sends in place of the notes added, for a test of wrong ones. */
let feed: unknown[] | undefined;

async function* counted<T>(items: AsyncIterable<T> | Iterable<T>): AsyncGenerator<T> {
  iterators.made++;
  try {
    for await (const item of items) {
      iterators.produced++;
      yield item;
    }
  } finally {
    iterators.finished++;
    iterators.finishedAt = performance.now();
  }
}

const handlers: Record<string, AnyHandler> = {
  followNotes: ({ headers }, { signal }) => ({
    status: 200,
    body:
      feed ??
      counted(
        (async function* () {
          const after = Number(headers['Last-Event-ID'] ?? 0);
          for await (const [note] of on(added, 'note', { signal }) as AsyncIterable<[{ id: number; text: string }]>)
            if (note.id > after) yield { event: 'added', id: String(note.id), data: JSON.stringify(note) };
        })(),
      ),
  }),
  importNotes: async ({ body }) => {
    for await (const note of body as AsyncIterable<{ text: string }>) {
      imported.push(note.text);
      importing.emit('note', note.text);
    }
    return { status: 204 };
  },
  exportNotes: (_input, { request: req }) => ({
    status: 200,
    contentType: req.get('accept')?.includes('json-seq') ? 'application/json-seq' : undefined,
    body: counted(exported() as Iterable<unknown>),
  }),
};

beforeAll(async () => {
  notes = await serve('notes-3.2.yaml', {
    handlers,
    warmUp: 'lazy',
    keepAliveMs: 100,
    bodyLimitBytes: 64 * 1024,
    streamedBodyLimitBytes: 1024 * 1024,
  });
});
afterAll(() => notes.close());

/** The events of a text/event-stream body: each as its fields, comments left out. */
function events(text: string): Record<string, string>[] {
  return text
    .split('\n\n')
    .map((block) => block.split('\n').filter((line) => line !== '' && !line.startsWith(':')))
    .filter((lines) => lines.length > 0)
    .map((lines) => {
      const event: Record<string, string> = {};
      for (const line of lines) {
        const [field, ...rest] = line.split(': ');
        event[field!] = event[field!] === undefined ? rest.join(': ') : `${event[field!]}\n${rest.join(': ')}`;
      }
      return event;
    });
}

/** Waits until `check` holds, up to `ms`. */
async function until(check: () => boolean, ms = 2000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await sleep(5);
  }
}

describe('a streamed answer (OpenAPI 3.2 itemSchema)', () => {
  it('sends server-sent events as they come, each checked and framed, flushed at once', async () => {
    const controller = new AbortController();
    const answer = await notes.fetch('/api/feed', { headers: { 'Last-Event-ID': '1' }, signal: controller.signal });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(answer.headers.get('cache-control')).toBe('no-cache');
    const reader = answer.body!.pipeThrough(new TextDecoderStream()).getReader();
    added.emit('note', { id: 1, text: 'before' });
    added.emit('note', { id: 2, text: 'two' });
    let text = '';
    while (!text.includes('id: 2')) text += (await reader.read()).value ?? '';
    // Each event goes out as it is made: the stream is still open.
    expect(events(text)).toEqual([{ event: 'added', id: '2', data: '{"id":2,"text":"two"}' }]);
    controller.abort();
  });

  it('keeps an idle event stream open with comments on the interval the application sets', async () => {
    const controller = new AbortController();
    const answer = await notes.fetch('/api/feed', { signal: controller.signal });
    const reader = answer.body!.pipeThrough(new TextDecoderStream()).getReader();
    const started = Date.now();
    let text = '';
    while (!text.includes(':\n\n:\n\n')) text += (await reader.read()).value ?? '';
    expect(Date.now() - started).toBeGreaterThanOrEqual(150);
    expect(events(text)).toEqual([]);
    controller.abort();
  });

  it('sends JSON Lines, or JSON text sequences where the handler names that media type', async () => {
    exported = () => [
      { id: 1, text: 'one' },
      { id: 2, text: 'line\nbreak', pinned: true },
    ];
    const lines = await notes.fetch('/api/notes/export');
    expect(lines.headers.get('content-type')).toMatch(/^application\/jsonl/);
    expect(await lines.text()).toBe('{"id":1,"text":"one"}\n{"id":2,"text":"line\\nbreak","pinned":true}\n');
    const sequence = await notes.fetch('/api/notes/export', { headers: { Accept: 'application/json-seq' } });
    expect(sequence.headers.get('content-type')).toMatch(/^application\/json-seq/);
    expect(await sequence.text()).toBe('\x1e{"id":1,"text":"one"}\n\x1e{"id":2,"text":"line\\nbreak","pinned":true}\n');
    const head = await notes.fetch('/api/notes/export', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
  });

  it('never sends an item its itemSchema refuses: the stream is cut off before it, and the reason told', async () => {
    for (const [wrong, reason] of [
      [{ id: 2 }, /exportNotes answered a stream whose item 2 is not as itemSchema says: \(root\) must have required property 'text'/],
      [{ id: 2, text: 'two', extra: 1 }, /item 2 is not as itemSchema says/],
    ] as const) {
      notes.errors.length = 0;
      const finished = iterators.finished;
      exported = () => [{ id: 1, text: 'one' }, wrong, { id: 3, text: 'three' }];
      const answer = await notes.fetch('/api/notes/export');
      expect(answer.status).toBe(200);
      const reader = answer.body!.pipeThrough(new TextDecoderStream()).getReader();
      let text = '';
      // The client sees the stream fail, not end: it cannot take a cut stream for a whole one.
      await expect(
        (async () => {
          for (;;) {
            const { value, done } = await reader.read();
            if (done) return;
            text += value;
          }
        })(),
      ).rejects.toThrow();
      expect(text).toBe('{"id":1,"text":"one"}\n');
      expect(String(notes.errors[0])).toMatch(reason);
      expect(iterators.finished).toBe(finished + 1);
    }
  });

  it("checks an event's JSON data against its contentSchema, and its fields against what SSE can carry", async () => {
    for (const [event, reason] of [
      [{ data: '{"id":3}' }, /item 1 has data not as its contentSchema says: \(root\) must have required property 'text'/],
      [{ data: 'not json' }, /item 1 has data that is no JSON text/],
      [{ data: '{"id":3,"text":"x"}', id: 'a\nb' }, /item 1 has an id that is no line of text/],
      [{ data: '{"id":3,"text":"x"}', comment: 'x' }, /item 1 has comment, which no field of a server-sent event is/],
    ] as const) {
      notes.errors.length = 0;
      feed = [event];
      try {
        const cut = await notes.fetch('/api/feed');
        await expect(cut.text()).rejects.toThrow();
        expect(String(notes.errors[0])).toMatch(reason);
      } finally {
        feed = undefined;
      }
    }
  });

  it("stops the handler's iterator within a second of the client going away, and aborts its signal", async () => {
    const controller = new AbortController();
    notes.errors.length = 0;
    const finished = iterators.finished;
    const answer = await notes.fetch('/api/feed', { signal: controller.signal });
    const reader = answer.body!.pipeThrough(new TextDecoderStream()).getReader();
    await until(() => added.listenerCount('note') > 0);
    added.emit('note', { id: 5, text: 'five' });
    let text = '';
    while (!text.includes('id: 5')) text += (await reader.read()).value ?? '';
    const goneAt = performance.now();
    controller.abort();
    await until(() => iterators.finished === finished + 1, 1000);
    expect(iterators.finishedAt - goneAt).toBeLessThan(1000);
    // The handler's wait on its signal ended with it: no listener is left behind.
    expect(added.listenerCount('note')).toBe(0);
    expect(notes.errors).toEqual([]);
  });

  it('holds the next item back while the client reads none: a slow client does not fill the memory', async () => {
    const item = { id: 1, text: 'x'.repeat(1000) };
    const total = 100_000;
    exported = () => Array.from({ length: total }, () => item);
    const produced = iterators.produced;
    const { port } = new URL(notes.origin);
    const req = request({ host: '127.0.0.1', port, path: '/api/notes/export' });
    req.end();
    const res = await new Promise<import('node:http').IncomingMessage>((resolve) => req.once('response', resolve));
    res.pause();
    await sleep(500);
    const held = iterators.produced - produced;
    // About what the socket's buffers hold (a few MB): 100 MB without back-pressure.
    expect(held).toBeLessThan(20_000);
    expect(held).toBeGreaterThan(0);
    let bytes = 0;
    res.on('data', (chunk: Buffer) => (bytes += chunk.length));
    res.resume();
    await new Promise((resolve) => res.once('end', resolve));
    expect(bytes).toBe(total * (JSON.stringify(item).length + 1));
  });

  it('ends every open stream when the server stops (endStreams), as the handler would, so a stop does not wait on them', async () => {
    const answer = await notes.fetch('/api/feed');
    await until(() => added.listenerCount('note') > 0);
    expect(notes.kit.endStreams()).toBe(1);
    // A clean end: the client reconnects, to another instance.
    expect(await answer.text()).not.toMatch(/data:/);
    await until(() => added.listenerCount('note') === 0);
  });
});

describe('conform on streamed answers', () => {
  const valid = (name: string) => (c: { name: string }) => c.name.startsWith(`${name}: `) && /valid request/.test(c.name);

  it("passes the kit's streams: each item read is checked, a feed that does not end is read for a while; it sends streamed requests", async () => {
    const doc = await loadContract(fileURLToPath(new URL('./fixtures/notes-3.2.yaml', import.meta.url)));
    exported = () => [{ id: 1, text: 'one' }];
    const cases = conformanceCases(doc);
    const target = { baseUrl: `${notes.origin}/api`, credential: () => undefined };
    const emitting = setInterval(() => added.emit('note', { id: 9, text: 'nine' }), 100);
    try {
      const only = (c: { name: string }) => ['followNotes', 'exportNotes', 'importNotes'].some((name) => valid(name)(c));
      const outcomes = await runConformance(cases, target, new ContractChecker(doc), only);
      // importNotes' valid request is a stream of items, each its itemSchema's.
      expect([...outcomes.keys()].filter((name) => name.startsWith('importNotes: '))).toHaveLength(1);
      expect(outcomes.size).toBe(3);
      for (const [name, outcome] of outcomes) expect(outcome, name).toEqual({ passed: true });
    } finally {
      clearInterval(emitting);
    }
  });

  it('fails a server whose stream has an item its itemSchema refuses, or is cut off', async () => {
    const doc = await loadContract(fileURLToPath(new URL('./fixtures/notes-3.2.yaml', import.meta.url)));
    // A server of its own making, as conform meets any: an event whose data is no Note, a JSON Lines stream cut off.
    const server = createServer((req, res) => {
      if (req.url?.startsWith('/api/feed')) {
        res.writeHead(200, { 'Content-Type': 'text/event-stream' });
        res.end('event: added\ndata: {"id":1,"text":"one"}\n\n: a comment\n\nevent: added\ndata: {"id":"two"}\n\n');
      } else {
        res.writeHead(200, { 'Content-Type': 'application/jsonl' });
        res.write('{"id":1,"text":"one"}\n{"id":2}\n');
        setTimeout(() => res.destroy(), 50);
      }
    }).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const target = { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`, credential: () => undefined };
      const outcomes = await runConformance(
        conformanceCases(doc),
        target,
        new ContractChecker(doc),
        (c) => valid('followNotes')(c) || valid('exportNotes')(c),
      );
      const failures = [...outcomes.values()].map((outcome) => ('failed' in outcome ? outcome.failed : '')).join('\n');
      expect(failures).toMatch(/item 2's data \/id must be integer/);
      expect(failures).toMatch(/item 2 \(root\) must have required property 'text'/);
      expect(failures).toMatch(/the stream failed after 2 item\(s\) instead of ending/);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});

describe('a streamed request (OpenAPI 3.2 itemSchema)', () => {
  const post = (body: BodyInit, headers: Record<string, string> = {}) =>
    notes.fetch('/api/notes/import', { method: 'POST', headers: { 'Content-Type': 'application/jsonl', ...headers }, body });

  it('gives the handler each item as it arrives, checked against itemSchema, in any content coding', async () => {
    imported.length = 0;
    expect((await post('{"text":"one"}\n\n{"text":"two","pinned":true}\r\n{"text":"three"}')).status).toBe(204);
    expect(imported).toEqual(['one', 'two', 'three']);
    imported.length = 0;
    expect((await post(gzipSync('{"text":"four"}\n'), { 'Content-Encoding': 'gzip' })).status).toBe(204);
    expect(imported).toEqual(['four']);
    // The first item reaches the handler while the rest of the body is still on its way.
    imported.length = 0;
    const { port } = new URL(notes.origin);
    const req = request({
      host: '127.0.0.1',
      port,
      path: '/api/notes/import',
      method: 'POST',
      headers: { 'Content-Type': 'application/jsonl' },
    });
    const answered = new Promise<number>((resolve) => req.once('response', (res) => (res.resume(), resolve(res.statusCode!))));
    req.write('{"text":"first"}\n');
    await new Promise((resolve) => importing.once('note', resolve));
    expect(imported).toEqual(['first']);
    req.end('{"text":"second"}\n');
    expect(await answered).toBe(204);
    expect(imported).toEqual(['first', 'second']);
  });

  it('refuses the first item that cannot be read or that itemSchema refuses with a 400 naming its position', async () => {
    imported.length = 0;
    const wrong = await post('{"text":"one"}\n{"text":""}\n{"text":"three"}\n');
    expect(wrong.status).toBe(400);
    const problem = (await wrong.json()) as { detail: string; errors: { field?: string; parameter?: string; pointer?: string }[] };
    expect(problem.detail).toBe("The request body's item 2 is not as its schema says.");
    expect(JSON.stringify(problem.errors)).toMatch(/must NOT have fewer than 1 characters/);
    expect(imported).toEqual(['one']);
    const unreadable = await post('{"text":"one"}\n{"text":\n');
    expect(unreadable.status).toBe(400);
    expect(((await unreadable.json()) as { detail: string }).detail).toMatch(
      /^The request body's item 2 cannot be read: The request body is not valid JSON/,
    );
  });

  it('refuses an item past the body limit, and a body past the streamed body limit, with a 413', async () => {
    const large = await post(`{"text":"${'x'.repeat(70 * 1024)}"}\n`);
    expect(large.status).toBe(413);
    expect(((await large.json()) as { detail: string }).detail).toBe("The request body's item 1 is larger than 65536 bytes.");
    const many = await post(Array.from({ length: 80_000 }, () => '{"text":"a note"}\n').join(''));
    expect(many.status).toBe(413);
    expect(((await many.json()) as { detail: string }).detail).toMatch(/larger than 1048576 bytes/);
  });
});
