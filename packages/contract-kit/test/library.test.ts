import { once } from 'node:events';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnyHandler, HttpProblem, UploadedFile } from 'contract-kit';
import { serve } from './serve.js';

type Served = Awaited<ReturnType<typeof serve>>;
let library: Served;
const covers = new Map<string, Buffer>();

const handlers: Record<string, AnyHandler> = {
  listBooks: (_, { caller }) => ({
    status: 200,
    body: [{ title: `Dune, for ${typeof caller === 'string' ? caller : 'anyone'}`, copies: 2 }],
  }),
  addBook: ({ body }, { caller, scopes }) => {
    const { title, copies, tags } = body as { title: string; copies: number; tags?: string[] };
    return { status: 201, body: { title: `${title} (by ${String(caller)}, ${scopes.join(' ')})`, copies, tags: tags ?? [] } };
  },
  putCover: ({ path, body }) => {
    covers.set(path.isbn as string, body as Buffer);
    return { status: 204 };
  },
  addNote: ({ body }) => ({ status: 201, body: `kept: ${String(body)}` }),
  uploadScan: ({ body }) => {
    const { page, file } = body as { page: number; file: UploadedFile };
    return { status: 201, body: { page, bytes: file.data.length, filename: file.filename ?? '' } };
  },
};

/** The contract's own error body: `{ error: { kind, text, fields } }`. */
const errors = (problem: HttpProblem, { contentType }: { contentType: string }) => ({
  contentType,
  body: { error: { kind: problem.code, text: problem.message, fields: problem.details.map((d) => d.field) } },
});

beforeAll(async () => {
  library = await serve('library-3.0.yaml', {
    handlers,
    errors,
    security: {
      headerKey: (credentials) => ('key' in credentials && credentials.key === 'k-1' ? { caller: 'desk' } : undefined),
      queryKey: (credentials) => ('key' in credentials && credentials.key === 'k-2' ? { caller: 'kiosk' } : undefined),
      oauth: (credentials) => {
        if (!('token' in credentials)) return undefined;
        if (credentials.token === 'writer') return { caller: 'librarian', scopes: ['books:read', 'books:write'] };
        if (credentials.token === 'reader') return { caller: 'reader', scopes: ['books:read'] };
        return undefined;
      },
    },
  });
});
afterAll(() => library.close());

describe('a 3.0 contract with apiKey, OAuth 2 scopes and an error body of its own', () => {
  it('serves a public operation without credentials', async () => {
    expect((await library.fetch('/library/books')).status).toBe(200);
  });

  it('names the caller of an operation open to anyone whose credentials hold ([{}, {headerKey: []}])', async () => {
    const titles = async (headers: Record<string, string>) =>
      ((await (await library.fetch('/library/books', { headers })).json()) as { title: string }[]).map((b) => b.title);
    expect(await titles({})).toEqual(['Dune, for anyone']);
    expect(await titles({ 'X-Library-Key': 'k-1' })).toEqual(['Dune, for desk']);
    expect(await titles({ 'X-Library-Key': 'wrong' })).toEqual(['Dune, for anyone']);
  });

  it('takes an apiKey from its header or its query parameter', async () => {
    const cover = Buffer.from([1, 2, 3, 255]);
    const put = (path: string, headers: Record<string, string> = {}) =>
      library.fetch(path, { method: 'PUT', headers: { 'Content-Type': 'application/octet-stream', ...headers }, body: cover });
    expect((await put('/library/books/9780441013593/cover', { 'X-Library-Key': 'k-1' })).status).toBe(204);
    expect((await put('/library/books/9780441013594/cover?key=k-2')).status).toBe(204);
    expect(covers.get('9780441013594')).toEqual(cover);
    const refused = await put('/library/books/9780441013595/cover', { 'X-Library-Key': 'wrong' });
    expect(refused.status).toBe(401);
    // No challenge for an apiKey: HTTP defines none.
    expect(refused.headers.get('www-authenticate')).toBeNull();
    expect(refused.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await refused.json()).toEqual({
      error: {
        kind: 'unauthorized',
        text: 'Valid credentials are required (the headerKey credentials are not valid; no key query parameter).',
        fields: [],
      },
    });
  });

  it('checks OAuth 2 scopes: 403 without the one required, and gives the handler the caller and scopes', async () => {
    const add = (token: string) =>
      library.fetch('/library/books', {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/x-www-form-urlencoded' },
        body: 'title=Emma&copies=3&tags=classic&tags=novel',
      });
    const added = await add('writer');
    expect(added.status).toBe(201);
    expect(await added.json()).toEqual({ title: 'Emma (by librarian, books:read books:write)', copies: 3, tags: ['classic', 'novel'] });
    const forbidden = await add('reader');
    expect(forbidden.status).toBe(403);
    expect(await forbidden.json()).toMatchObject({ error: { kind: 'forbidden' } });
    const unknown = await add('nobody');
    expect(unknown.status).toBe(401);
    expect(unknown.headers.get('www-authenticate')).toBe('Bearer realm="Library loans", scope="books:write"');
  });

  it('checks a form against its schema, its strings typed as the schema says', async () => {
    const refused = await library.fetch('/library/books', {
      method: 'POST',
      headers: { Authorization: 'Bearer writer', 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'title=&copies=none',
    });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: { fields: string[] } }).error.fields.sort()).toEqual(['body.copies', 'body.title']);
  });

  it('reads a multipart form: its fields checked and typed, its file as bytes', async () => {
    const form = new FormData();
    form.set('page', '12');
    form.set('file', new Blob([new Uint8Array([9, 8, 7])], { type: 'image/tiff' }), 'page-12.tiff');
    const scanned = await library.fetch('/library/scans', { method: 'POST', headers: { 'X-Library-Key': 'k-1' }, body: form });
    expect(scanned.status).toBe(201);
    expect(await scanned.json()).toEqual({ page: 12, bytes: 3, filename: 'page-12.tiff' });
    const noFile = new FormData();
    noFile.set('page', 'x');
    const refused = await library.fetch('/library/scans', { method: 'POST', headers: { 'X-Library-Key': 'k-1' }, body: noFile });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: { fields: string[] } }).error.fields.sort()).toEqual(['body.file', 'body.page']);
  });

  it('reads a text body as text, checked against its schema, and answers text', async () => {
    const note = (body: string, type = 'text/plain') =>
      library.fetch('/library/notes', { method: 'POST', headers: { 'X-Library-Key': 'k-1', 'Content-Type': type }, body });
    const kept = await note('return by Friday');
    expect(kept.status).toBe(201);
    expect(kept.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(await kept.text()).toBe('kept: return by Friday');
    expect((await note('far longer than twenty characters')).status).toBe(400);
    expect((await note('x', 'text/plain; charset=iso-8859-1')).status).toBe(415);
  });

  it("takes a body its client cut off for the client's doing, not a failure of its own", async () => {
    const socket = connect(Number(new URL(library.origin).port), '127.0.0.1');
    await once(socket, 'connect');
    socket.write(
      'POST /library/notes HTTP/1.1\r\nHost: x\r\nX-Library-Key: k-1\r\nContent-Type: text/plain\r\nContent-Length: 10\r\n\r\nret',
    );
    await new Promise((r) => setTimeout(r, 100));
    socket.destroy();
    await new Promise((r) => setTimeout(r, 100));
    expect(library.errors, 'no 500 for a body the client cut off').toEqual([]);
  });

  it("refuses a request without its one Host header (RFC 9112), whatever its path, in the contract's error body", async () => {
    /** The status line, Connection header and body of the answer to a request written byte for byte. */
    const send = async (head: string) => {
      const socket = connect(Number(new URL(library.origin).port), '127.0.0.1');
      const chunks: Buffer[] = [];
      socket.on('data', (chunk: Buffer) => chunks.push(chunk));
      socket.end(`${head}\r\n`);
      await once(socket, 'close');
      const [top = '', body = ''] = Buffer.concat(chunks).toString().split('\r\n\r\n');
      return { status: top.split(' ')[1], connection: /^connection: (.*)$/im.exec(top)?.[1], body };
    };
    const refused = { status: '400', connection: 'close', body: expect.stringContaining('"kind":"invalid_request"') };
    for (const head of [
      'GET /library/books HTTP/1.1\r\n',
      'GET /library/books HTTP/1.1\r\nHost: a\r\nHost: b\r\n',
      'GET /library/books HTTP/1.1\r\nHost: a\r\nhost: a\r\n',
      'GET /elsewhere HTTP/1.1\r\nHost: a\r\nHost: b\r\n',
    ]) {
      const answer = await send(head);
      expect(answer, head).toEqual(refused);
      expect(JSON.parse(answer.body), head).toMatchObject({ error: { fields: ['header.host'] } });
    }
    // HTTP/1.0 has no Host header.
    expect((await send('GET /library/books HTTP/1.0\r\n')).status).toBe('200');
  });

  it('does not route callbacks', async () => {
    expect((await library.fetch('/library/%7B$request.query.callback%7D', { method: 'POST' })).status).toBe(404);
  });

  it('had no failure of its own', () => {
    expect(library.errors).toEqual([]);
  });
});

describe("a JSON response's media type", () => {
  const books = [{ title: 'Dune', copies: 2 }];
  /** The library, its list of books declaring `types` for 200 (a list, but an object in `application/vnd.library.count+json`), answering `body` as `contentType`. */
  const servedWith = (types: string[], contentType?: string, body: unknown = books) =>
    serve('library-3.0.yaml', {
      handlers: { ...handlers, listBooks: () => ({ status: 200, contentType, body }) },
      errors,
      security: { headerKey: () => undefined, queryKey: () => undefined, oauth: () => undefined },
      edit: (contract) => {
        const ok = (contract.paths!['/books'] as { get: { responses: Record<string, { content: Record<string, unknown> }> } }).get
          .responses['200']!;
        const list = ok.content['application/json'];
        const count = { schema: { type: 'object', required: ['count'], properties: { count: { type: 'integer' } } } };
        ok.content = Object.fromEntries(types.map((type) => [type, type.includes('count') ? count : list]));
      },
    });

  /** The status and media type of a GET of the books, and whether the kit saw no failure of its own. */
  async function answer(served: Awaited<ReturnType<typeof servedWith>>, accept: string) {
    try {
      const response = await served.fetch('/library/books', { headers: { Accept: accept } });
      return { status: response.status, type: response.headers.get('content-type'), errors: served.errors };
    } finally {
      await served.close();
    }
  }

  it('is the one its status declares, application/json or another', async () => {
    expect(await answer(await servedWith(['application/json']), 'text/html')).toEqual({
      status: 200,
      type: 'application/json; charset=utf-8',
      errors: [],
    });
    const vendor = await answer(await servedWith(['application/vnd.library+json']), 'text/html');
    expect({ ...vendor, type: vendor.type?.split(';')[0] }).toEqual({ status: 200, type: 'application/vnd.library+json', errors: [] });
  });

  it('is the first of two a status declares, and checked against its schema, whatever the request accepts', async () => {
    const types = ['application/json', 'application/vnd.library.count+json'];
    expect(await answer(await servedWith(types), 'application/vnd.library.count+json')).toEqual({
      status: 200,
      type: 'application/json; charset=utf-8',
      errors: [],
    });
    const named = await answer(await servedWith(types, 'application/vnd.library.count+json', { count: 1 }), 'application/json');
    expect({ ...named, type: named.type?.split(';')[0] }).toEqual({ status: 200, type: 'application/vnd.library.count+json', errors: [] });
  });
});
