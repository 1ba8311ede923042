import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contractServer, listOperations, loadContract, parseContract, type AnyHandler } from 'contract-kit';
import { serve } from './serve.js';

type Served = Awaited<ReturnType<typeof serve>>;
let notes: Served;
/** What the next addNote answers, for a test of the response check. */
let added: unknown = undefined;

const handlers: Record<string, AnyHandler> = {
  listNotes: ({ query }) => ({ status: 200, body: [{ id: 1, text: `limit ${JSON.stringify(query.limit ?? 'none')}` }] }),
  addNote: ({ body }) => ({ status: 201, body: added ?? { id: 2, ...(body as object) } }),
  getPrefs: () => ({ status: 204 }),
  getNote: ({ path }) => ({ status: 200, body: path.noteId === 13 ? { id: 13 } : { id: path.noteId, text: 'one' } }),
  // An answer the contract declares without a body, and with one when the query asks for it.
  queryNotes: ({ body }) => ((body as { wrong?: boolean }).wrong ? { status: 200, body: { not: 'declared' } } : { status: 200 }),
  linkNote: () => ({ status: 204 }),
  searchNotes: ({ query }) => ({ status: 200, body: [{ id: 1, text: JSON.stringify(query) }] }),
};

beforeAll(async () => {
  notes = await serve('notes-3.2.yaml', { handlers, warmUp: 'lazy' });
});
afterAll(() => notes.close());

const post = (body: unknown) =>
  notes.fetch('/api/notes', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });

describe('an OpenAPI 3.2 contract', () => {
  it('is served as a 3.1 one: its server, parameters, bodies and answers checked, its schemas JSON Schema 2020-12', async () => {
    const listed = await notes.fetch('/api/notes?limit=5');
    expect(listed.status).toBe(200);
    expect(await listed.json()).toEqual([{ id: 1, text: 'limit 5' }]);
    expect((await notes.fetch('/api/notes?limit=500')).status).toBe(400);
    expect((await notes.fetch('/api/notes/7')).status).toBe(200);
    // An answer of a media type given by $ref (components.mediaTypes) is checked.
    expect((await notes.fetch('/api/notes/13')).status).toBe(500);
    // A cookie parameter of OpenAPI 3.2's style cookie, which the validator does not know, is taken.
    expect((await notes.fetch('/api/notes')).status).toBe(200);
    expect((await notes.fetch('/api/notes', { headers: { Cookie: 'seen=1' } })).status).toBe(200);
    expect((await notes.fetch('/api/notes', { headers: { Cookie: 'seen=x' } })).status).toBe(400);
  });

  it('checks cookie parameters, required ones and their schemas, with no cookie parser in the app', async () => {
    expect((await notes.fetch('/api/prefs', { headers: { Cookie: 'theme=dark' } })).status).toBe(204);
    const missing = await notes.fetch('/api/prefs');
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as { errors: { parameter?: string }[] }).errors).toEqual([
      expect.objectContaining({ parameter: 'cookie.theme' }),
    ]);
    expect((await notes.fetch('/api/prefs', { headers: { Cookie: 'theme=blue' } })).status).toBe(400);
    expect((await notes.fetch('/api/notes/seven')).status).toBe(400);
    const created = await post({ text: 'hello', pinned: null });
    expect(created.status).toBe(201);
    expect(await created.json()).toEqual({ id: 2, text: 'hello', pinned: null });
    expect((await post({ text: '' })).status).toBe(400);
    expect((await post({ text: 'x', pinned: 'yes' })).status).toBe(400);
    added = { id: 'two', text: 'hello' };
    try {
      expect((await post({ text: 'hello' })).status).toBe(500);
    } finally {
      added = undefined;
    }
  });

  it('reads a form-encoded querystring parameter as the query parameters its schema names, checked and typed', async () => {
    const search = async (query: string) => {
      const answer = await notes.fetch(`/api/search?${query}`);
      return {
        status: answer.status,
        body: (await answer.json()) as { text?: string; errors?: { parameter?: string }[] }[] & { errors?: unknown },
      };
    };
    expect(await search('text=cats&limit=2&tag=a&tag=b')).toEqual({
      status: 200,
      body: [{ id: 1, text: JSON.stringify({ text: 'cats', limit: 2, tag: ['a', 'b'] }) }],
    });
    expect((await search('text=cats')).body).toEqual([{ id: 1, text: '{"text":"cats"}' }]);
    for (const [query, parameter] of <[string, string][]>[
      ['limit=2', 'query.text'],
      ['text=', 'query.text'],
      ['text=cats&limit=0', 'query.limit'],
      ['text=cats&other=1', 'query.other'],
    ])
      expect(await search(query), query).toMatchObject({ status: 400, body: { errors: [expect.objectContaining({ parameter })] } });
    const said = notes.warnings.join('\n');
    expect(said).not.toMatch(/searchNotes/);
    // Its streams are served (streams.test.ts).
    expect(said).not.toMatch(/(followNotes|exportNotes|importNotes) \([^)]*\): its/);
  });

  it('answers 501 for a querystring it does not read, or one beside query parameters, naming it', () => {
    const defect = (parameters: string) =>
      listOperations(
        parseContract(
          `openapi: 3.2.0\ninfo: { title: t, version: '1' }\npaths:\n  /a:\n    get:\n      operationId: a\n      parameters: ${parameters}\n` +
            `      responses: { '204': { description: ok } }\n`,
          't.yaml',
        ),
      )[0]!.defect;
    const form = (schema: string) => `{ name: q, in: querystring, content: { application/x-www-form-urlencoded: { schema: ${schema} } } }`;
    expect(defect(`[${form('{ type: object, properties: { a: { type: string } } }')}]`)).toBeNull();
    expect(defect(`[{ name: q, in: querystring, content: { application/json: { schema: { type: object } } } }]`)).toMatch(
      /q is in: querystring \(OpenAPI 3\.2\) of application\/json, which this version of contract-kit does not serve yet/,
    );
    expect(defect(`[${form('{ type: string }')}]`)).toMatch(/its schema is not an object of named properties/);
    expect(defect(`[${form('{ type: object, properties: {} }')}, { name: b, in: query, schema: { type: string } }]`)).toMatch(
      /q is in: querystring beside query parameters, which OpenAPI 3\.2 does not allow/,
    );
    // What the object says as a whole would go unchecked, its properties each a parameter.
    for (const [keyword, schema] of [
      ['maxProperties', '{ type: object, properties: { a: { type: string } }, maxProperties: 1 }'],
      ['additionalProperties', '{ type: object, properties: { a: { type: string } }, additionalProperties: { type: integer } }'],
      ['required', '{ type: object, properties: { a: { type: string } }, required: [a, b] }'],
      ['anyOf', '{ type: object, properties: { a: { type: string } }, anyOf: [{ required: [a] }] }'],
    ])
      expect(defect(`[${form(schema!)}]`), keyword).toMatch(new RegExp(`its schema's ${keyword} is about the object as a whole`));
    // The operation's querystring replaces its path's of the same name.
    const overriding = listOperations(
      parseContract(
        `openapi: 3.2.0\ninfo: { title: t, version: '1' }\npaths:\n  /a:\n    parameters: [${form('{ properties: { old: { type: string } } }')}]\n` +
          `    get:\n      operationId: a\n      parameters: [${form('{ properties: { new: { type: string } } }')}]\n      responses: { '204': { description: ok } }\n`,
        't.yaml',
      ),
    )[0]!;
    expect([overriding.defect, overriding.parameters.map((p) => p.name)]).toEqual([null, ['new']]);
  });

  it('routes QUERY and additionalOperations, checking their requests and answers, and lists them in Allow', async () => {
    const query = (body: string) => notes.fetch('/api/notes', { method: 'QUERY', headers: { 'Content-Type': 'application/json' }, body });
    expect((await query('{}')).status).toBe(200);
    const refused = await query('[1]');
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { errors: { pointer: string }[] }).errors).toEqual([expect.objectContaining({ pointer: '' })]);
    // An answer with a body the contract does not declare.
    expect((await query('{"wrong":true}')).status).toBe(500);
    expect((await notes.fetch('/api/notes/7', { method: 'LINK' })).status).toBe(204);
    expect((await notes.fetch('/api/notes/seven', { method: 'LINK' })).status).toBe(400);
    const other = await notes.fetch('/api/notes', { method: 'PUT' });
    expect(other.status).toBe(405);
    expect(other.headers.get('allow')).toBe('GET, HEAD, POST, QUERY');
    expect((await notes.fetch('/api/notes/7', { method: 'DELETE' })).headers.get('allow')).toBe('GET, HEAD, LINK');
    expect(notes.warnings.join('\n')).not.toMatch(/queryNotes|linkNote/);
  });

  it('compiles the validators of QUERY and additionalOperations at start, and names one that cannot be', async () => {
    // Two properties of one $id: a schema the validator cannot compile, in a POST and in a QUERY.
    const broken = '{ type: object, properties: { a: { $id: "https://x.example/a" }, b: { $id: "https://x.example/a" } } }';
    const operation = (id: string) =>
      `      operationId: ${id}\n      requestBody: { content: { application/json: { schema: ${broken} } } }\n      responses: { '204': { description: ok } }\n`;
    const warnings: string[] = [];
    const kit = contractServer({
      contract: parseContract(
        `openapi: 3.2.0\ninfo: { title: t, version: '1' }\npaths:\n  /p:\n    post:\n${operation('postP')}  /q:\n    query:\n${operation('queryQ')}` +
          `  /fine:\n    additionalOperations:\n      PURGE:\n        operationId: purge\n        responses: { '204': { description: ok } }\n`,
        't.yaml',
      ),
      handlers: {},
      warmUp: 'blocking',
      onWarning: (message) => warnings.push(message),
    });
    expect(await kit.ready).toMatchObject({ operations: 3, compiled: 1, failed: 2, compiledOnRequest: 0 });
    expect(warnings.join('\n')).toMatch(/postP \(POST \/p\).*queryQ \(QUERY \/q\)/);
  });

  it('refuses an additionalOperations method a server cannot be sent, or one a fixed field is for', () => {
    const defects = (method: string) =>
      listOperations(
        parseContract(
          `openapi: 3.2.0\ninfo: { title: t, version: '1' }\npaths:\n  /a:\n    additionalOperations:\n` +
            `      ${method}: { operationId: a, responses: { '204': { description: ok } } }\n`,
          't.yaml',
        ),
      ).map((op) => [op.method, op.pointer, op.defect]);
    expect(defects('PURGE')).toEqual([['purge', '#/paths/~1a/additionalOperations/PURGE', null]]);
    expect(defects('link')).toEqual([['link', expect.any(String), expect.stringMatching(/methods are case-sensitive: LINK/)]]);
    expect(defects('FROB')).toEqual([
      ['frob', expect.any(String), expect.stringMatching(/FROB is not one an HTTP server of Node\.js takes/)],
    ]);
    expect(defects('QUERY')).toEqual([
      ['query', expect.any(String), expect.stringMatching(/may not hold one of the path item's own fields/)],
    ]);
    expect(defects('CONNECT')).toEqual([
      ['connect', expect.any(String), expect.stringMatching(/CONNECT is one an HTTP server of Node\.js takes apart/)],
    ]);
  });

  it('reads itemSchema as a stream in 3.2 alone: before, it is no field, and the operation is served', () => {
    const contract = (openapi: string, type: string) =>
      parseContract(
        `openapi: ${openapi}\ninfo: { title: t, version: '1' }\npaths:\n  /feed:\n    get:\n      operationId: follow\n` +
          `      responses: { '200': { description: ok, content: { ${type}: { itemSchema: { type: string } } } } }\n`,
        't.yaml',
      );
    expect(listOperations(contract('3.1.0', 'multipart/mixed'))[0]!.defect).toBeNull();
    expect(listOperations(contract('3.2.0', 'multipart/mixed'))[0]!.defect).toMatch(
      /is a stream \(itemSchema\) of a media type it does not frame/,
    );
    expect(listOperations(contract('3.2.0', 'application/x-ndjson'))[0]!.defect).toBeNull();
  });

  it('loads a contract of a later OpenAPI no more, saying which it reads', async () => {
    const file = join(await mkdtemp(join(tmpdir(), 'kit-4.0-')), 'c.yaml');
    await writeFile(file, 'openapi: 4.0.0\ninfo: { title: t, version: "1" }\npaths: {}\n');
    await expect(loadContract(file)).rejects.toThrow(/OpenAPI 3\.0\.x, 3\.1\.x and 3\.2\.x are supported/);
  });
});
