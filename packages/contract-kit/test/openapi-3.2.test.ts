import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listOperations, loadContract, parseContract, type AnyHandler } from 'contract-kit';
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

  it('answers 501 for an operation with a parameter in: querystring, naming it at start', async () => {
    const searched = await notes.fetch('/api/search?text=a');
    expect(searched.status).toBe(501);
    expect(((await searched.json()) as { detail: string }).detail).toMatch(/terms is in: querystring/);
    const said = notes.warnings.join('\n');
    expect(said).toMatch(/searchNotes \(GET \/search\): its parameter terms is in: querystring/);
    // Its streams are served (streams.test.ts).
    expect(said).not.toMatch(/(followNotes|exportNotes|importNotes) \([^)]*\): its/);
  });

  it('names at start the operations of QUERY and additionalOperations, and answers their methods 405', async () => {
    expect(notes.warnings.join('\n')).toMatch(/2 operations of a method OpenAPI 3\.2 adds.*: QUERY \/notes; LINK \/notes\/\{noteId\}/);
    const queried = await notes.fetch('/api/notes', { method: 'QUERY', headers: { 'Content-Type': 'application/json' }, body: '{}' });
    expect(queried.status).toBe(405);
    expect(queried.headers.get('allow')).toMatch(/GET/);
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
