import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { contractServer, serve, type ContractServerOptions, type OpenApiDocument } from 'contract-kit';

const json = (schema: unknown) => ({ 'application/json': { schema } });
const book = { $ref: '#/components/schemas/Book' };
const newBook = { $ref: '#/components/schemas/NewBook' };

/** Two paths, four operations: a query, a JSON or form body, a path parameter, answers with and without a body. */
const SHELF: OpenApiDocument = {
  openapi: '3.1.0',
  info: { title: 'Shelf', version: '1.0.0' },
  paths: {
    '/books': {
      get: {
        operationId: 'listBooks',
        parameters: [{ name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 50 } }],
        responses: { '200': { description: 'Books', content: json({ type: 'array', items: book }) } },
      },
      post: {
        operationId: 'addBook',
        requestBody: { required: true, content: { ...json(newBook), 'application/x-www-form-urlencoded': { schema: newBook } } },
        responses: { '201': { description: 'Added', content: json(book) } },
      },
    },
    '/books/{id}': {
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } }],
      get: { operationId: 'getBook', responses: { '200': { description: 'A book', content: json(book) } } },
      delete: { operationId: 'removeBook', responses: { '204': { description: 'Removed' } } },
    },
  },
  components: {
    schemas: {
      NewBook: {
        type: 'object',
        additionalProperties: false,
        required: ['title', 'pages'],
        properties: { title: { type: 'string', minLength: 1, pattern: '^\\S' }, pages: { type: 'integer', minimum: 1 } },
      },
      Book: {
        type: 'object',
        required: ['id', 'title', 'pages'],
        properties: { id: { type: 'integer' }, title: { type: 'string' }, pages: { type: 'integer' } },
      },
    },
  },
};

const DUNE = { id: 7, title: 'Dune', pages: 412 };
const HANDLERS = {
  listBooks: () => ({ status: 200, body: [DUNE] }),
  addBook: () => ({ status: 201, body: DUNE }),
  getBook: () => ({ status: 200, body: DUNE }),
  removeBook: () => ({ status: 204 }),
};

/** A request to each operation (the body in two media types), and one the validator refuses. */
const REQUESTS: [string, RequestInit?][] = [
  ['/books?limit=5'],
  ['/books', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"title":"Dune","pages":412}' }],
  ['/books', { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'title=Dune&pages=412' }],
  ['/books/7'],
  ['/books/7', { method: 'DELETE' }],
  ['/books', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"title":" ","pages":0}' }],
];
/** What each of REQUESTS is answered. */
const ANSWERS = [
  [200, [DUNE]],
  [201, DUNE],
  [201, DUNE],
  [200, DUNE],
  [204, ''],
  [400, ['/pages', '/title']],
];

const servers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of servers.splice(0)) await close();
});

/** The shelf served by the kit on a free loopback port. */
async function shelf(options: Partial<ContractServerOptions> = {}) {
  const warnings: string[] = [];
  const kit = contractServer({ contract: SHELF, handlers: HANDLERS, onWarning: (m) => warnings.push(m), ...options });
  const app = express();
  app.use(kit.router);
  app.use(kit.errorHandler);
  const server = createServer(app).listen(0, '127.0.0.1');
  await once(server, 'listening');
  servers.push(() => new Promise((resolve) => server.close(() => resolve())));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  /** Each of REQUESTS, answered: its status, and its body (the fields a 400 names, as JSON pointers). */
  const ask = (requests = REQUESTS) =>
    Promise.all(
      requests.map(async ([path, init]) => {
        const response = await fetch(`${origin}${path}`, init);
        const text = await response.text();
        if (response.status !== 400) return [response.status, text === '' ? '' : JSON.parse(text)];
        const { errors } = JSON.parse(text) as { errors: { pointer: string }[] };
        return [400, errors.map((e) => e.pointer).sort()];
      }),
    );
  return { kit, warnings, ask };
}

describe('the validators of a contract', () => {
  it('are compiled after start, in the background, so that the first request to an operation compiles none', async () => {
    const { kit, ask } = await shelf();
    const ready = await kit.ready;
    expect(ready).toMatchObject({ operations: 4, compiled: 4, failed: 0, compiledOnRequest: 0 });
    expect(ready.milliseconds).toBeGreaterThan(0);
    expect(await ask()).toEqual(ANSWERS);
    expect(kit.progress()).toEqual({ operations: 4, compiled: 4, failed: 0, compiledOnRequest: 0 });
  });

  it('answer the requests sent while they are being compiled as they answer later ones', async () => {
    const { kit, ask } = await shelf();
    const early = ask();
    expect(kit.progress().compiled).toBeLessThan(4);
    expect(await early).toEqual(ANSWERS);
    expect(await kit.ready).toMatchObject({ operations: 4, compiled: 4, failed: 0 });
    expect(await ask()).toEqual(ANSWERS);
  });

  it("are each compiled by its operation's first request with warmUp 'lazy', and ready says so at once", async () => {
    const { kit, ask } = await shelf({ warmUp: 'lazy' });
    expect(await kit.ready).toEqual({ operations: 4, compiled: 0, failed: 0, compiledOnRequest: 0, milliseconds: 0 });
    expect(await ask(REQUESTS.slice(0, 2))).toEqual(ANSWERS.slice(0, 2));
    expect(kit.progress()).toEqual({ operations: 4, compiled: 2, failed: 0, compiledOnRequest: 2 });
    expect(await ask()).toEqual(ANSWERS);
    expect(kit.progress()).toEqual({ operations: 4, compiled: 4, failed: 0, compiledOnRequest: 4 });
  });

  it("hold every request until all are compiled with warmUp 'blocking'", async () => {
    const { kit, ask } = await shelf({ warmUp: 'blocking' });
    const [answer] = await ask(REQUESTS.slice(3, 4));
    expect(answer).toEqual(ANSWERS[3]);
    expect(kit.progress()).toEqual({ operations: 4, compiled: 4, failed: 0, compiledOnRequest: 0 });
  });

  it('fail one operation alone when its schema cannot be compiled: the others of its path are served', async () => {
    const broken = structuredClone(SHELF);
    const add = (broken.paths!['/books'] as { post: { requestBody: { content: Record<string, { schema: unknown }> } } }).post;
    add.requestBody.content['application/json']!.schema = { $ref: '#/components/schemas/Shelf' };
    const errors: unknown[] = [];
    const { kit, warnings, ask } = await shelf({ contract: broken, onError: (error) => errors.push(error) });
    expect(await kit.ready).toMatchObject({ operations: 4, compiled: 3, failed: 1 });
    expect(warnings).toEqual([
      'the contract: 1 operation answers 500, the validator failing to compile: addBook (POST /books): ' +
        '#/components/schemas/Shelf: the $ref #/components/schemas/Shelf points at nothing',
    ]);
    const answers = await ask();
    expect(answers.map(([status]) => status)).toEqual([200, 500, 500, 200, 204, 500]);
    expect(errors).toHaveLength(3);
  });

  it('compile the validator of an operation whose body is only a media type range, such as application/*', async () => {
    const ranged = structuredClone(SHELF);
    type Post = { requestBody: { content: object }; responses: Record<string, { content: object }> };
    const add = (ranged.paths!['/books'] as { post: Post }).post;
    add.requestBody.content = { 'application/*': {} };
    // An answer's schema it cannot compile, for the warm-up to find.
    add.responses['201']!.content = { 'application/json': { schema: { $ref: '#/components/schemas/Shelf' } } };
    const { kit, warnings } = await shelf({ contract: ranged });
    expect(await kit.ready).toMatchObject({ operations: 4, compiled: 3, failed: 1 });
    expect(warnings).toEqual([expect.stringContaining('1 operation answers 500, the validator failing to compile: addBook (POST /books)')]);
  });
});

describe('serve, given the validators', () => {
  it('says once they are all compiled, and how long that took', async () => {
    const kit = contractServer({ contract: SHELF, handlers: HANDLERS, onWarning: () => undefined });
    const said: string[] = [];
    const served = await serve(express().use(kit.router), {
      port: 0,
      host: '127.0.0.1',
      signals: [],
      ready: kit.ready,
      onInfo: (m) => said.push(m),
    });
    servers.push(() => served.stop({ graceMs: 0 }));
    await kit.ready;
    await new Promise((resolve) => setImmediate(resolve));
    expect(said).toEqual([expect.stringMatching(/^Validators ready: 4 operations, compiled in [\d,]+ ms$/)]);
  });
});
