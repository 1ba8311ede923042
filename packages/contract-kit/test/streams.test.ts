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

describe('a streamed request that is mostly whitespace', () => {
  it('passes over blank lines byte by byte, and refuses an item whose whitespace passes the item limit', async () => {
    const post = (body: BodyInit) =>
      notes.fetch('/api/notes/import', { method: 'POST', headers: { 'Content-Type': 'application/jsonl' }, body });
    imported.length = 0;
    const cpu = process.cpuUsage();
    const blank = await post(`${' \n'.repeat(400 * 1024)}{"text":"last"}\n${' '.repeat(100 * 1024)}`);
    const used = process.cpuUsage(cpu);
    expect(blank.status).toBe(204);
    expect(imported).toEqual(['last']);
    // Measured, not bounded: each blank line an item of its own, 16 MiB of them took 7.5 s; 16 MiB of spaces, 18.6 s.
    console.log(`800 KiB of blank lines read in ${((used.user + used.system) / 1000).toFixed(0)} ms of CPU (client and server)`);
    const spaced = await post(`{"text":${' '.repeat(70 * 1024)}"x"}\n`);
    expect(spaced.status).toBe(413);
    expect(((await spaced.json()) as { detail: string }).detail).toBe("The request body's item 1 is larger than 65536 bytes.");
  });
});

describe('a stream whose handler or client misbehaves', () => {
  const event = { data: '{"id":1,"text":"one"}' };
  const seen = { signal: undefined as AbortSignal | undefined, stuck: 0 };
  let mode: 'late' | 'stuck' | 'throwing' = 'late';
  const misbehaving: Record<string, AnyHandler> = {
    followNotes: async (_input, { signal }) => {
      seen.signal = signal;
      if (mode === 'late') await sleep(150);
      if (mode === 'throwing')
        return {
          status: 200,
          body: {
            [Symbol.iterator]: () => ({
              next: () => ({ done: false, value: event }),
              return: () => {
                throw new Error('cursor close failed');
              },
            }),
          },
        };
      return {
        status: 200,
        body: (async function* () {
          yield event;
          // Waits on what ignores its signal.
          seen.stuck++;
          await new Promise(() => undefined);
        })(),
      };
    },
  };
  let served: Served;
  beforeAll(async () => {
    served = await serve('notes-3.2.yaml', { handlers: misbehaving, warmUp: 'lazy', keepAliveMs: 20 });
  });
  afterAll(() => served.close());

  const readThenLeave = async () => {
    const controller = new AbortController();
    const answer = await served.fetch('/api/feed', { signal: controller.signal });
    const reader = answer.body!.getReader();
    await reader.read();
    controller.abort();
  };

  it('asks nothing of a handler whose client went away before it answered, and aborts its signal', async () => {
    mode = 'late';
    const controller = new AbortController();
    const asked = served.fetch('/api/feed', { signal: controller.signal }).catch(() => undefined);
    await sleep(50);
    controller.abort();
    await asked;
    await sleep(200);
    expect(seen.signal?.aborted).toBe(true);
    expect(served.kit.openStreams()).toBe(0);
    expect(seen.stuck).toBe(0);
  });

  it('lets go of a stream whose iterator waits on what ignores its signal once the client goes away', async () => {
    mode = 'stuck';
    await readThenLeave();
    await until(() => seen.stuck === 1);
    await until(() => served.kit.openStreams() === 0);
  });

  it("tells onError what an iterator's return throws as it is stopped, and goes on serving", async () => {
    mode = 'throwing';
    served.errors.length = 0;
    await readThenLeave();
    await until(() => served.errors.length > 0);
    expect(String(served.errors[0])).toMatch(/cursor close failed/);
    expect((await served.fetch('/api/notes/7')).status).toBe(501);
  });

  it('ends a stream begun after endStreams as soon as its headers are sent: the server is stopping', async () => {
    mode = 'stuck';
    served.kit.endStreams();
    const answer = await served.fetch('/api/feed');
    expect(answer.status).toBe(200);
    expect(await answer.text()).toBe('');
  });
});

describe('a request body declared as a stream and as one value', () => {
  it('is read as a stream in the one media type and whole in the other', async () => {
    const got: unknown[] = [];
    const served = await serve('notes-3.2.yaml', {
      warmUp: 'lazy',
      handlers: {
        importNotes: async ({ body, contentType }) => {
          if (contentType === 'application/jsonl') for await (const note of body as AsyncIterable<unknown>) got.push(note);
          else got.push(body);
          return { status: 204 };
        },
      },
      edit: (contract) => {
        const content = (contract.paths!['/notes/import'] as { post: { requestBody: { content: Record<string, unknown> } } }).post
          .requestBody.content;
        content['application/json'] = { schema: { type: 'array', items: { $ref: '#/components/schemas/NewNote' } } };
      },
    });
    try {
      const post = (type: string, body: string) =>
        served.fetch('/api/notes/import', { method: 'POST', headers: { 'Content-Type': type }, body });
      expect((await post('application/jsonl', '{"text":"a"}\n{"text":"b"}\n')).status).toBe(204);
      expect((await post('application/json', '[{"text":"c"}]')).status).toBe(204);
      expect((await post('application/json', '[{"text":""}]')).status).toBe(400);
      expect(got).toEqual([{ text: 'a' }, { text: 'b' }, [{ text: 'c' }]]);
    } finally {
      await served.close();
    }
  });
});

describe('conform on events whose data the contract types as JSON, not as a string', () => {
  /** The fixture with the feed's event data typed as a Note, as some contracts write it. */
  const dataAsNote = (contract: Awaited<ReturnType<typeof loadContract>>) => {
    const feed = contract.paths!['/feed'] as {
      get: { responses: Record<string, { content: Record<string, { itemSchema: { properties: Record<string, unknown> } }> }> };
    };
    feed.get.responses['200']!.content['text/event-stream']!.itemSchema.properties.data = { $ref: '#/components/schemas/Note' };
  };

  it('parses their data before it checks them, as the kit sent it', async () => {
    const doc = await loadContract(fileURLToPath(new URL('./fixtures/notes-3.2.yaml', import.meta.url)));
    dataAsNote(doc);
    const served = await serve('notes-3.2.yaml', {
      warmUp: 'lazy',
      handlers: { followNotes: () => ({ status: 200, body: [{ event: 'added', id: '1', data: { id: 1, text: 'one' } }] }) },
      edit: dataAsNote,
    });
    try {
      const target = { baseUrl: `${served.origin}/api`, credential: () => undefined };
      const outcomes = await runConformance(conformanceCases(doc), target, new ContractChecker(doc), (c) =>
        c.name.startsWith('followNotes: a valid request'),
      );
      expect([...outcomes.values()]).toEqual([{ passed: true }]);
      expect(served.errors).toEqual([]);
    } finally {
      await served.close();
    }
  });
});
