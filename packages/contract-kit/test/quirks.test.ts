import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ContractError, contractServer, loadContract, parseContract, problemDetails, type UploadedFile } from 'contract-kit';
import { conformanceCases, ContractChecker, propertyCases, runConformance } from 'contract-kit/testing';
import { serve } from './serve.js';

type Served = Awaited<ReturnType<typeof serve>>;

describe('forms of real 3.0 contracts', () => {
  let quirks: Served;
  beforeAll(async () => {
    quirks = await serve('quirks-3.0.yaml', {
      handlers: {
        listEvents: () => ({ status: 200, body: [{ request: null }, { request: { any: 'thing' } }] }),
        listTags: ({ query, headers }) => ({ status: 200, body: { query, headers } }),
        getKey: ({ path }) => ({ status: 200, body: { id: path.key_id } }),
        postAction: () => ({ status: 201 }),
        subscribe: ({ body }) => ({ status: 200, body }),
        patchSettings: () => ({ status: 204 }),
        getItem: () => ({ status: 200 }),
      },
    });
  });
  afterAll(() => quirks.close());

  it('compiles a schema with nullable and no type, as any value', async () => {
    expect(await (await quirks.fetch('/events')).json()).toEqual([{ request: null }, { request: { any: 'thing' } }]);
  });

  it('takes a pattern with escapes the u flag refuses as the pattern its author meant', async () => {
    expect((await quirks.fetch('/tags?tag=a:b-c')).status).toBe(200);
    expect((await quirks.fetch('/tags?tag=a%20b')).status).toBe(400);
  });

  it('reads a space sent as + in the query as a space', async () => {
    expect(await (await quirks.fetch('/tags?name=my+droplet')).json()).toMatchObject({ query: { name: 'my droplet' } });
  });

  it('reads an array header without a style as simple, comma-separated', async () => {
    expect(await (await quirks.fetch('/tags', { headers: { 'X-Colours': 'red,green' } })).json()).toMatchObject({
      headers: { 'X-Colours': ['red', 'green'] },
    });
    expect((await quirks.fetch('/tags')).status).toBe(200);
  });

  it('does not refuse a path parameter for schemas marked readOnly, which describe bodies', async () => {
    // anyOf an integer and a string: the handler gets the text.
    expect(await (await quirks.fetch('/keys/42')).json()).toEqual({ id: '42' });
    expect((await quirks.fetch('/keys/ab:cd')).status).toBe(200);
    expect((await quirks.fetch('/keys/zz')).status).toBe(400);
  });

  it('names the body in a discriminator error, and the field of the chosen branch', async () => {
    const post = (body: string) => quirks.fetch('/actions', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });
    const unknown = (await (await post('{"type":"rebuild"}')).json()) as { errors: unknown[] };
    expect(unknown.errors).toEqual([expect.objectContaining({ pointer: '' })]);
    const missing = (await (await post('{"type":"assign"}')).json()) as { errors: unknown[] };
    expect(missing.errors).toEqual([expect.objectContaining({ pointer: '/droplet_id' })]);
    expect((await post('{"type":"assign","droplet_id":8}')).status).toBe(201);
  });

  it('takes an empty form as a form without fields, and one field of an array as an array', async () => {
    const post = (body: string) =>
      quirks.fetch('/subscriptions', { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body });
    expect(await (await post('')).json()).toEqual({});
    expect(await (await post('topic=news&tags=a')).json()).toEqual({ topic: 'news', tags: ['a'] });
  });

  it('takes a media type under a declared application/*+json range', async () => {
    const patched = await quirks.fetch('/settings', {
      method: 'PATCH',
      headers: { 'Content-Type': 'application/merge-patch+json' },
      body: '{}',
    });
    expect(patched.status).toBe(204);
  });

  it('answers 404 for a path parameter left empty', async () => {
    expect((await quirks.fetch('/items/')).status).toBe(404);
  });

  it('says once at start which formats it does not know, and lets any value pass them', async () => {
    expect(quirks.warnings).toContain('the validator does not know the format(s) snowflake: any value passes them');
    expect((await quirks.fetch('/tags?snowflake=175928847299117063')).status).toBe(200);
  });

  it('had no failure of its own', () => {
    expect(quirks.errors).toEqual([]);
  });
});

describe('forms of real 3.1 contracts', () => {
  let quirks: Served;
  beforeAll(async () => {
    quirks = await serve('quirks-3.1.yaml', {
      handlers: {
        listRequests: () => ({ status: 200, body: [] }),
        getApp: ({ path }) => ({ status: 200, body: { id: path.id } }),
        headApp: () => ({ status: 200 }),
        getPage: ({ path }) => ({ status: 200, body: `page ${String(path.page)}` }),
        uploadSkill: ({ body }) => ({
          status: 201,
          body: { files: ([] as UploadedFile[]).concat((body as { files: UploadedFile }).files).length },
        }),
      },
    });
  });
  afterAll(() => quirks.close());

  it('compiles an empty enum (no value valid), a 3.0 boolean exclusiveMinimum, and a map or null in the query', async () => {
    expect((await quirks.fetch('/requests')).status).toBe(200);
    expect((await quirks.fetch('/requests?status=open')).status).toBe(400);
    expect((await quirks.fetch('/requests?limit=0')).status).toBe(400);
    expect((await quirks.fetch('/requests?limit=1')).status).toBe(200);
  });

  it('ignores an Accept header declared as a parameter, as OpenAPI says', async () => {
    const app = await quirks.fetch('/apps/a-1', { headers: { Accept: 'application/json' } });
    expect(app.status, await app.clone().text()).toBe(200);
    expect(await app.json()).toEqual({ id: 'a-1' });
  });

  it('passes contract-kit conform and its generated requests: long ids kept short, HEAD without a body, no path outside a catch-all', async () => {
    const doc = await loadContract(fileURLToPath(new URL('./fixtures/quirks-3.1.yaml', import.meta.url)));
    const target = { baseUrl: quirks.origin, credential: () => undefined };
    const outcomes = await runConformance(
      [...conformanceCases(doc), ...propertyCases(doc, { runs: 50, seed: 1 })],
      target,
      new ContractChecker(doc),
    );
    const failed = [...outcomes].filter(([, o]) => 'failed' in o);
    expect(failed).toEqual([]);
    expect(outcomes.get('headApp: a valid request (HEAD /apps/{id}) is answered as the contract declares')).toEqual({ passed: true });
    expect(outcomes.get('a path outside the contract is answered 404')).toEqual({ passed: true });
  }, 60_000);

  it('takes one file or several where the field is one file or an array of them', async () => {
    for (const count of [1, 2]) {
      const form = new FormData();
      for (let i = 0; i < count; i++) form.append('files', new Blob([`file ${i}`]), `f${i}.md`);
      const uploaded = await quirks.fetch('/skills', { method: 'POST', body: form });
      expect(await uploaded.json(), `${count} file(s)`).toEqual({ files: count });
    }
  });

  it('had no failure of its own', () => {
    expect(quirks.errors).toEqual([]);
  });
});

describe('a path that holds a query', () => {
  it('is refused at start, naming it', () => {
    const contract = parseContract(
      `openapi: 3.1.0
info: { title: t, version: '1' }
paths:
  /responses?beta=true:
    post:
      responses: { '200': { description: ok } }
`,
      'beta.yaml',
    );
    expect(() => contractServer({ contract, label: 'beta.yaml', handlers: {}, onWarning: () => undefined })).toThrow(
      new ContractError(
        'beta.yaml#/paths/~1responses?beta=true/post',
        'the path /responses?beta=true holds a query or a fragment (? or #), which OpenAPI paths may not',
      ),
    );
  });
});

describe('error bodies the contract declares in another media type than problem+json', () => {
  const contract = parseContract(
    `openapi: 3.0.3
info: { title: t, version: '1' }
paths:
  /things:
    get:
      responses:
        '200': { description: ok }
        '4XX': { description: refused, content: { application/json: { schema: { type: object } } } }
`,
    'errors.yaml',
  );
  const warningsOf = (errors?: Parameters<typeof contractServer>[0]['errors']) => {
    const warnings: string[] = [];
    contractServer({ contract, label: 'errors.yaml', handlers: {}, errors, onWarning: (w) => warnings.push(w) });
    return warnings;
  };

  it('are named at start when no errors function builds them, or the default one is given (as contract-kit init does)', () => {
    const warning =
      "errors.yaml declares error bodies other than RFC 9457's, such as #/paths/~1things/get/responses/4XX (application/json): give contractServer an errors function that builds them (src/errors.ts in a project of contract-kit init); until then every error is application/problem+json";
    expect(warningsOf()).toContain(warning);
    expect(warningsOf(problemDetails)).toContain(warning);
    expect(warningsOf((problem, { contentType }) => ({ contentType, body: { message: problem.message } })).join()).not.toMatch(/RFC 9457/);
  });
});
