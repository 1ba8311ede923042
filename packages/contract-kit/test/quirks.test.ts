import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadContract, type OpenApiDocument, type UploadedFile } from 'contract-kit';
import { conformanceCases, ContractChecker, ContractSchemas, propertyCases, runConformance } from 'contract-kit/testing';
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
        getLinked: () => ({ status: 204 }),
        postWeights: () => ({ status: 204 }),
        getTile: ({ path }) => ({ status: 200, body: path }),
        postImage: () => ({ status: 204 }),
        addDevice: () => ({ status: 204 }),
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

  it('reads a pattern as written without the u flag where its escapes need that, and leaves out one that is no pattern, saying so', async () => {
    expect((await quirks.fetch('/tags?label=ab%2B')).status).toBe(200);
    expect((await quirks.fetch('/tags?label=ap%2B')).status).toBe(400);
    expect((await quirks.fetch('/tags?code=anything')).status).toBe(200);
    const said = quirks.warnings.join('\n');
    expect(said).toContain('quirks-3.0.yaml: 2 pattern(s) are read as written without the u flag');
    expect(said).toContain('1 pattern(s) are no regular expression, and are not checked: "^[a-$"');
  });

  it('follows a parameter that refers into another path by a percent-encoded pointer', async () => {
    expect((await quirks.fetch('/linked/t1?depth=2')).status).toBe(204);
    expect((await quirks.fetch('/linked/t1?depth=deep')).status).toBe(400);
  });

  it('leaves out of a request a default its own schema refuses, saying so', async () => {
    const answer = await quirks.fetch('/tags?name=x');
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as { query: object }).query).toEqual({ name: 'x' });
    expect(quirks.warnings.join('\n')).toContain(
      'listTags: 1 default(s) their own schemas refuse, which the validator leaves out of requests: ""',
    );
  });

  it('takes the text of each value of an enum of booleans and numbers without a type', async () => {
    for (const value of ['true', 'false', '0', '1']) expect((await quirks.fetch(`/tags?delivered=${value}`)).status, value).toBe(200);
    expect((await quirks.fetch('/tags?delivered=yes')).status).toBe(400);
  });

  it("checks a header the operation declares again, in other letters' case, with the operation's schema", async () => {
    const add = (sha: string) =>
      quirks.fetch('/devices', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Content-Sha256': sha },
        body: JSON.stringify({ id: 1 }),
      });
    expect((await add('not-a-hash')).status).toBe(400);
    expect((await add('a'.repeat(64))).status).toBe(204);
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

  it('validates schemas whose extensions and examples hold an id (JSON Schema draft 04 would read it as their identifier), without the default of a read-only property', async () => {
    const post = (body: unknown) =>
      quirks.fetch('/weights', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    expect((await post({ a: { id: 'w' }, b: { id: 3 } })).status).toBe(204);
    expect((await post({ a: { id: 'w' }, b: { id: 'three' } })).status).toBe(400);
    expect((await post({ a: { id: 'w' }, b: { 'x-size': 1, example: true } })).status).toBe(204);
    expect((await post({ a: { id: 'w' }, b: { 'x-size': 'big' } })).status).toBe(400);
  });

  it('refuses null where nullable has an enum without it, and conform makes no such value; a read-only $ref in requests', async () => {
    const post = (body: unknown) =>
      quirks.fetch('/weights', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    expect((await post({ a: { id: 'w' }, b: { state: 'open' } })).status).toBe(204);
    expect((await post({ a: { id: 'w' }, b: { state: null } })).status).toBe(400);
    expect((await post({ a: { id: 'w', serial: 's' } })).status).toBe(400);
    const schemas = new ContractSchemas(await loadContract(fileURLToPath(new URL('./fixtures/quirks-3.0.yaml', import.meta.url))));
    expect(schemas.accepts({ $ref: '#/components/schemas/State' }, null)).toBe(false);
  });

  it('splits a segment of two parameters by what each takes: a number with a dot, then a format', async () => {
    expect(await (await quirks.fetch('/tiles/71.441.xml')).json()).toEqual({ lat: 71.441, format: 'xml' });
    expect(await (await quirks.fetch('/tiles/-3.json')).json()).toEqual({ lat: -3, format: 'json' });
    expect((await quirks.fetch('/tiles/north.json')).status).toBe(400);
  });

  it('takes bytes declared under a JSON media type as bytes, and conform has no JSON of them to refuse', async () => {
    expect((await quirks.fetch('/images', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '[]' })).status).toBe(
      204,
    );
    const names = conformanceCases(await loadContract(fileURLToPath(new URL('./fixtures/quirks-3.0.yaml', import.meta.url)))).map(
      (c) => c.name,
    );
    expect(names).toContain('postImage: a valid request (POST /images) is answered as the contract declares');
    expect(names).not.toContain('postImage: a JSON body its schema refuses is refused with 400');
  });

  it('takes a body whose schema is marked read-only where it is a property of answers', async () => {
    const add = (body: unknown) =>
      quirks.fetch('/devices', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    expect((await add({ id: 1 })).status).toBe(204);
    expect((await add({ id: 'one' })).status).toBe(400);
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

describe('a contract whose $refs reach inside schemas (their definitions)', () => {
  it('validates requests and answers through them', async () => {
    const served = await serve('deep-refs-3.0.yaml', {
      handlers: {
        getAccount: ({ path }) =>
          path.id === 'bad'
            ? { status: 200, body: { id: 'bad', identifiers: { number: 7 } } }
            : {
                status: 200,
                body: { id: String(path.id), identifiers: { number: 'n', previous: { number: 'p' } }, balance: { current: 1 } },
              },
        putBalance: () => ({ status: 204 }),
        listOwners: () => ({ status: 200, body: { data: [{ name: 'Ann' }] } }),
        getOwner: ({ path }) => ({ status: 200, body: { name: path.name } }),
        listOwnerNames: () => ({ status: 200, body: { data: [{ name: 'Ann' }] } }),
      },
    });
    try {
      expect((await served.fetch('/bank/accounts/a')).status).toBe(200);
      expect(await (await served.fetch('/bank/owners/Ann')).json()).toEqual({ name: 'Ann' });
      // Another path's answer, taken by an operation whose path key holds a query: its validator compiles.
      expect((await served.fetch('/bank/owners?view=names')).status).toBe(200);
      // conform, whose checker resolves a $ref into another path's answer too.
      const contract = await loadContract(fileURLToPath(new URL('./fixtures/deep-refs-3.0.yaml', import.meta.url)));
      const outcomes = await runConformance(
        conformanceCases(contract),
        { baseUrl: `${served.origin}/bank`, credential: () => undefined },
        new ContractChecker(contract),
        (c) => c.kind === 'valid' && /^(getOwner|listOwners|getAccount):/.test(c.name),
      );
      expect([...outcomes.values()]).toEqual([{ passed: true }, { passed: true }, { passed: true }]);
      const put = (body: unknown) =>
        served.fetch('/bank/accounts/a', { method: 'PUT', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
      expect((await put({ balance: { current: 1 }, limit: 3 })).status).toBe(204);
      expect((await put({ balance: { current: 'one' } })).status).toBe(400);
      // An answer its schema refuses, inside a schema reached by such a $ref, is the server's fault.
      expect((await served.fetch('/bank/accounts/bad')).status).toBe(500);
      expect(served.errors.map(String).join('\n')).not.toMatch(/can't resolve reference/);
    } finally {
      await served.close();
    }
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
        runQuery: ({ body }) => ({ status: 200, body: { query: (body as { query?: string } | undefined)?.query ?? '' } }),
        listAudits: () => ({ status: 200, body: [] }),
        getCollection: () => ({ status: 200 }),
        createCode: ({ body }) => ({ status: 201, body }),
        setWifi: ({ body }) => ({ status: 200, body }),
        uploadSkill: ({ body }) => ({
          status: 201,
          body: { files: ([] as UploadedFile[]).concat((body as { files: UploadedFile }).files).length },
        }),
      },
      security: Object.fromEntries(
        ['keyInQuery', 'sameKeyInQuery', 'keyInHeader'].map((name) => [
          name,
          (c: object) => ('key' in c && c.key === 'k-1' ? { caller: name } : undefined),
        ]),
      ),
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

  it('passes contract-kit conform and its generated requests: long ids kept short, HEAD without a body, no path outside a catch-all, a JSON media type with a parameter, Accept-Encoding declared, an API key declared as a parameter too, content keys that are no media types', async () => {
    const doc = await loadContract(fileURLToPath(new URL('./fixtures/quirks-3.1.yaml', import.meta.url)));
    const target = { baseUrl: quirks.origin, credential: () => 'k-1' };
    const outcomes = await runConformance(
      [...conformanceCases(doc), ...propertyCases(doc, { runs: 50, seed: 1 })],
      target,
      new ContractChecker(doc),
    );
    const failed = [...outcomes].filter(([, o]) => 'failed' in o);
    expect(failed).toEqual([]);
    expect(outcomes.get('headApp: a valid request (HEAD /apps/{id}) is answered as the contract declares')).toEqual({ passed: true });
    expect(outcomes.get('a path outside the contract is answered 404')).toEqual({ passed: true });
    for (const name of [
      'listAudits: a valid request (GET /audits) is answered as the contract declares',
      'listAudits: a query parameter per_page its schema refuses is refused with 400',
      'listAudits: 50 generated invalid requests are refused with 400',
      'runQuery: a valid request (POST /queries) is answered as the contract declares',
      'getCollection: a valid request (GET /collections/{id}) is answered as the contract declares',
      'createCode: a valid request (POST /codes) is answered as the contract declares',
    ])
      expect(outcomes.get(name), name).toEqual({ passed: true });
  }, 60_000);

  it('fills in the defaults of a schema given whole, and none of it as a branch of an anyOf (Ajv put them into other branches` values)', async () => {
    const send = (method: string, path: string, body: unknown) =>
      quirks.fetch(path, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const email = await send('POST', '/codes', { data: { to: 'ann@example.com' } });
    expect(email.status, await email.clone().text()).toBe(201);
    // fallback's default is filled in; its channel is an anyOf's Wi-Fi branch, which gets no `hidden`.
    const fallback = { channel: { ssid: 'guest' } };
    expect(await email.json()).toEqual({ data: { to: 'ann@example.com' }, fallback });
    const wifi = await send('POST', '/codes', { data: { ssid: 'home' } });
    expect(wifi.status, await wifi.clone().text()).toBe(201);
    expect(await wifi.json()).toEqual({ data: { ssid: 'home' }, fallback });
    expect((await send('POST', '/codes', { data: { to: 'ann@example.com', ssid: 'home' } })).status).toBe(400);
    const whole = await send('PUT', '/codes', { ssid: 'home' });
    // Ajv fills in the default of a property's own schema, not one behind its $ref (security's WPA).
    expect(await whole.json()).toEqual({ ssid: 'home', hidden: false });
  });

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

describe('a server URL and a path key with spaces, as a template left unfilled writes them', () => {
  let spaced: Served;
  const edit = (contract: OpenApiDocument) => {
    contract.servers = [{ url: 'Your API URL' }];
    contract.paths!['/issuer/Pull Doc Request'] = {
      post: {
        operationId: 'pullDoc',
        requestBody: { required: true, content: { 'application/json': { schema: { type: 'object' } } } },
        responses: { '200': { description: 'The document' } },
      },
    };
  };
  beforeAll(async () => {
    spaced = await serve('quirks-3.1.yaml', { edit, handlers: { pullDoc: () => ({ status: 200 }) } });
  });
  afterAll(() => spaced.close());

  it('serves the path under the server`s, each percent-encoded as clients send them', async () => {
    const url = '/Your%20API%20URL/issuer/Pull%20Doc%20Request';
    expect((await spaced.fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status).toBe(200);
    const get = await spaced.fetch(url);
    expect([get.status, get.headers.get('allow')]).toEqual([405, 'POST']);
    expect((await spaced.fetch('/Your%20API%20URL/issuer/nothing')).status).toBe(404);
    const doc = await loadContract(fileURLToPath(new URL('./fixtures/quirks-3.1.yaml', import.meta.url)));
    edit(doc);
    const outcomes = await runConformance(
      conformanceCases(doc).filter((c) => c.name.startsWith('pullDoc') || c.kind === 'routing'),
      { baseUrl: `${spaced.origin}/Your%20API%20URL`, credential: () => 'k-1' },
      new ContractChecker(doc),
    );
    expect([...outcomes].filter(([, o]) => 'failed' in o)).toEqual([]);
  });

  it('starts on a server URL with a percent sign that escapes nothing', async () => {
    const percent = await serve('quirks-3.1.yaml', { edit: (contract) => void (contract.servers = [{ url: '/100%' }]), handlers: {} });
    try {
      expect((await percent.fetch('/elsewhere/nothing')).status).toBe(404);
    } finally {
      await percent.close();
    }
  });
});

describe('an anyOf whose branches name each other', () => {
  let items: Served;
  beforeAll(async () => {
    items = await serve('quirks-3.1.yaml', {
      edit: (contract) => {
        const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
        Object.assign(contract.components!.schemas!, {
          Folder: {
            type: 'object',
            required: ['files'],
            properties: { files: { type: 'array', items: ref('File') }, sorted: { type: 'boolean', default: true } },
          },
          // A default only through Folder, which names File again.
          File: {
            type: 'object',
            additionalProperties: false,
            required: ['name'],
            properties: { name: { type: 'string' }, folder: ref('Folder') },
          },
        });
        contract.paths!['/items'] = {
          put: {
            operationId: 'putItem',
            requestBody: {
              required: true,
              content: {
                'application/json': { schema: { type: 'object', properties: { item: { anyOf: [ref('Folder'), ref('File')] } } } },
              },
            },
            responses: { '200': { description: 'The item as the handler got it', content: { 'application/json': { schema: {} } } } },
          },
        };
      },
      handlers: { putItem: ({ body }) => ({ status: 200, body }) },
    });
  });
  afterAll(() => items.close());

  it('fills in no default of a branch reached only through another branch', async () => {
    const body = { item: { name: 'a.txt', folder: { files: [] } } };
    const put = await items.fetch('/items', { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect(put.status, await put.clone().text()).toBe(200);
    expect(await put.json()).toEqual(body);
  });
});
