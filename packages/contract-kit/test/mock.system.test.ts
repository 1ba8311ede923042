import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listOperations, loadContract, parseContract, type OpenApiDocument } from 'contract-kit';
import { conformanceCases, ContractChecker, runConformance } from 'contract-kit/testing';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMock, type MockOptions } from '../src/mock/mock-server.js';
import { prismDocument } from '../src/mock/prism-document.js';
import { run } from './run-cli.js';

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));

/** A mock of a fixture contract on a free loopback port, with Prism behind it. */
async function served(name: string, options: Partial<MockOptions> = {}) {
  const contract = await loadContract(fixture(name));
  const warnings: string[] = [];
  const mock = await createMock({ ...options, contract, label: name, server: { ...options.server, onWarning: (w) => warnings.push(w) } });
  const server: Server = createServer(mock.app).listen(0, '127.0.0.1');
  await once(server, 'listening');
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    contract,
    mock,
    origin,
    warnings,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await mock.close();
    },
  };
}

describe('the mock, on what Prism alone stumbles on', () => {
  let it_: Awaited<ReturnType<typeof served>>;
  beforeAll(async () => {
    it_ = await served('mock-3.0.yaml');
  }, 180_000);
  afterAll(() => it_?.close());
  const get = (path: string, init?: RequestInit) => fetch(`${it_.origin}/v2${path}`, init);

  it('answers JSON in the media type the contract declares, where Prism has no writer for it (*/*, a vendor type)', async () => {
    const report = await get('/reports');
    expect(report.status).toBe(200);
    expect(report.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await report.json()).toMatchObject({ total: expect.any(Number) as number });
    const version = await get('/version');
    expect(version.status).toBe(200);
    expect(version.headers.get('content-type')).toMatch(/^application\/vnd\.example\.apiversion(;|$)/);
    expect(JSON.parse(await version.text())).toMatchObject({ major: expect.any(Number) as number });
  });

  it('answers a media range other than */* and application/* in a media type of that range', async () => {
    const blob = await get('/blobs/b-1');
    expect(blob.status).toBe(200);
    expect(blob.headers.get('content-type')).toMatch(/^image\/png(;|$)/);
  });

  it('writes XML of an object, and names at start an answer no value was found for', async () => {
    const feed = await get('/feed');
    expect(feed.headers.get('content-type')).toMatch(/^application\/xml/);
    expect(await feed.text()).toMatch(/<feed>\s*<title>[^<]*<\/title>\s*<\/feed>/);
    expect(it_.warnings.join('\n')).toMatch(/no value its schema takes was found for 1 answer\(s\).*getImpossible 200 \(/);
    expect((await get('/impossible')).status).toBe(200);
    expect(it_.warnings.join('\n')).toContain(
      '1 operation(s) declare no success answer, and the mock answers what they declare: getHealth (500)',
    );
    expect((await get('/health')).status).toBe(500);
  });

  it('answers a value its schema takes where the contract`s example breaks it, with its declared headers', async () => {
    const item = await get('/items/chair');
    expect(item.status).toBe(200);
    expect(await item.json()).toEqual({ id: expect.any(Number) as number, name: expect.any(String) as string });
    expect(Number(item.headers.get('X-Version'))).toEqual(expect.any(Number));
  });

  it('refuses as the server does, in the contract`s error shape, before Prism sees the request', async () => {
    const refused = await get('/items', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"id":0}' });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({ code: 400, message: expect.any(String) as string });
    expect((await get('/items', { method: 'POST', headers: { 'Content-Type': 'text/plain' }, body: 'x' })).status).toBe(415);
    expect((await get('/items', { method: 'DELETE' })).status).toBe(405);
    expect((await get('/items/chair', { headers: { Prefer: 'code=404' } })).status).toBe(404);
  });

  it('answers the first success unless the request`s Prefer asks for another', async () => {
    expect(await (await get('/choices')).json()).toEqual({ ok: true });
    expect(await (await get('/choices', { headers: { Prefer: 'code=500' } })).json()).toEqual({ error: 'missing_scope' });
  });

  it('routes an operation of a shared URL, and passes contract-kit conform`s valid requests', async () => {
    expect(await (await get('/?Action=Ping')).json()).toEqual({ pong: expect.any(Boolean) as boolean });
    const outcomes = await runConformance(
      conformanceCases(it_.contract),
      { baseUrl: `${it_.origin}/v2`, credential: () => undefined },
      new ContractChecker(it_.contract),
      (c) => c.kind === 'valid',
    );
    expect([...outcomes].filter(([name, o]) => !('passed' in o) && !/^(getImpossible|getHealth):/.test(name))).toEqual([]);
  });
});

describe('the mock of a contract whose $refs reach into another path`s answer', () => {
  it('answers with a value of that schema', async () => {
    const mock = await served('deep-refs-3.0.yaml');
    try {
      const owner = await fetch(`${mock.origin}/bank/owners/Ann`);
      expect(owner.status).toBe(200);
      expect(await owner.json()).toEqual({ name: expect.any(String) as string });
    } finally {
      await mock.close();
    }
  }, 120_000);
});

describe('the mock of a contract whose schemas refer to each other by pointers into one component', () => {
  it('starts and answers with a value of that schema', async () => {
    const mock = await served('recursive-refs-3.0.yaml');
    try {
      const gateway = await fetch(`${mock.origin}/net/gateways/east`);
      expect(gateway.status).toBe(200);
      expect(await gateway.json()).toEqual(expect.any(Object));
    } finally {
      await mock.close();
    }
  }, 60_000);
});

describe('the mock of an OpenAPI 3.2 contract', () => {
  it('streams items made from itemSchema, framed for their media type, and ends the stream; answers QUERY, LINK and a querystring', async () => {
    const mock = await served('notes-3.2.yaml');
    try {
      const feed = await fetch(`${mock.origin}/api/feed`);
      expect(feed.headers.get('content-type')).toMatch(/^text\/event-stream/);
      const events = (await feed.text()).split('\n\n').filter((block) => block.includes('data: '));
      expect(events).toHaveLength(3);
      for (const event of events) {
        // Each event's data is JSON of its contentSchema, a Note.
        const data = JSON.parse(/^data: (.*)$/m.exec(event)![1]!) as unknown;
        expect(data).toEqual(expect.objectContaining({ id: expect.any(Number) as number, text: expect.any(String) as string }));
      }
      const lines = await fetch(`${mock.origin}/api/notes/export`);
      expect(lines.headers.get('content-type')).toMatch(/^application\/jsonl/);
      const notes = (await lines.text())
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line) as unknown);
      expect(notes).toHaveLength(3);
      expect(notes[0]).toEqual(expect.objectContaining({ id: expect.any(Number) as number }));
      // A QUERY and an additionalOperations method (LINK), and a querystring, checked as the server checks them.
      const query = (body: string) =>
        fetch(`${mock.origin}/api/notes`, { method: 'QUERY', headers: { 'Content-Type': 'application/json' }, body });
      expect((await query('{}')).status).toBe(200);
      expect((await query('[]')).status).toBe(400);
      expect((await fetch(`${mock.origin}/api/notes/7`, { method: 'LINK' })).status).toBe(204);
      const found = await fetch(`${mock.origin}/api/search?text=cats`);
      expect(found.status).toBe(200);
      expect(await found.json()).toEqual(expect.any(Array));
      expect((await fetch(`${mock.origin}/api/search?limit=2`)).status).toBe(400);
    } finally {
      await mock.close();
    }
  }, 120_000);
});

describe('the mock with the options of contract-kit.config (MockConfig)', () => {
  let plain: Awaited<ReturnType<typeof served>>;
  let configured: Awaited<ReturnType<typeof served>>;
  beforeAll(async () => {
    plain = await served('mock-config-3.1.yaml');
    configured = await served('mock-config-3.1.yaml', {
      server: {
        bodyLimitBytes: 100,
        errors: (problem) => ({ contentType: 'application/json', body: { kind: problem.code, text: problem.message } }),
      },
      use: [(req, res, next) => (req.method === 'OPTIONS' ? void res.status(204).end() : next())],
      headers: ({ status, operation, body }) => ({
        'X-Shelf': `${operation?.name ?? 'none'} ${status}${body === undefined ? '' : ' prism'}`,
        'X-Version': status === 429 ? 1 : null,
      }),
      example: ({ operation, examples }) =>
        examples.find(({ value }) =>
          ((value as { fields?: string[] }).fields ?? []).every((f) => !f.startsWith('body.') || operation.requestBody),
        )?.name,
    });
  }, 180_000);
  afterAll(() => Promise.all([plain?.close(), configured?.close()]));
  const auth = { Authorization: 'Bearer any' };
  const json = { ...auth, 'Content-Type': 'application/json' };

  it('answers a named example the contract gives by $ref', async () => {
    expect(await (await fetch(`${plain.origin}/v1/books`, { headers: auth })).json()).toEqual([{ title: 'Emma' }, { title: 'Persuasion' }]);
  });

  it('answers a request naming no example with the one `example` picks, else Prism`s first', async () => {
    const asked = { headers: { ...auth, Prefer: 'code=400' } };
    expect(await (await fetch(`${plain.origin}/v1/books`, asked)).json()).toMatchObject({ fields: ['body.title'] });
    expect(await (await fetch(`${configured.origin}/v1/books`, asked)).json()).toMatchObject({ fields: ['query.limit'] });
    const named = { headers: { ...auth, Prefer: 'code=400, example=BodyRefused' } };
    expect(await (await fetch(`${configured.origin}/v1/books`, named)).json()).toMatchObject({ fields: ['body.title'] });
  });

  it('sets `headers` on every answer, Prism`s and the server`s refusals alike', async () => {
    const answered = await fetch(`${configured.origin}/v1/books`, { headers: auth });
    expect(answered.headers.get('X-Shelf')).toBe('listBooks 200 prism');
    const refused = await fetch(`${configured.origin}/v1/books`);
    expect([refused.status, refused.headers.get('X-Shelf')]).toEqual([401, 'listBooks 401']);
    const lost = await fetch(`${configured.origin}/v1/shelves`, { headers: auth });
    expect([lost.status, lost.headers.get('X-Shelf')]).toEqual([404, 'none 404']);
    expect(answered.headers.get('X-Version')).toBeNull();
  });

  it('refuses with the server options given: its body limit, in its error body', async () => {
    const body = JSON.stringify({ title: 'x'.repeat(200) });
    const plainAnswer = await fetch(`${plain.origin}/v1/books`, { method: 'POST', headers: json, body });
    expect(plainAnswer.status).toBe(201);
    const tooLarge = await fetch(`${configured.origin}/v1/books`, { method: 'POST', headers: json, body });
    expect(tooLarge.status).toBe(413);
    expect(await tooLarge.json()).toEqual({ kind: 'payload_too_large', text: expect.any(String) as string });
    const text = await fetch(`${configured.origin}/v1/books`, {
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'text/plain' },
      body: 'x',
    });
    expect([text.status, ((await text.json()) as { kind: string }).kind]).toEqual([415, 'unsupported_media_type']);
  });

  it('runs the `use` middleware before the contract`s router', async () => {
    expect((await fetch(`${plain.origin}/v1/books`, { method: 'OPTIONS' })).status).toBe(405);
    expect((await fetch(`${configured.origin}/v1/books`, { method: 'OPTIONS' })).status).toBe(204);
  });
});

describe('contract-kit mock with a contract-kit.config.mjs', () => {
  it('takes its mock section, and logs a line per request as its client got it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kit-mock-config-'));
    const config = 'export default { mock: { server: { bodyLimitBytes: 100 }, headers: () => ({ "X-Shelf": "yes" }) } };\n';
    writeFileSync(join(dir, 'contract-kit.config.mjs'), config);
    const main = fileURLToPath(new URL('../src/cli/main.ts', import.meta.url));
    const args = [
      '--import',
      import.meta.resolve('tsx'),
      main,
      'mock',
      '--spec',
      fixture('mock-config-3.1.yaml'),
      '--port',
      '0',
      '--verbose',
    ];
    const child = spawn(process.execPath, args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    try {
      await expect.poll(() => output, { timeout: 60_000, interval: 100 }).toContain('Press Ctrl+C to stop.');
      const base = /listening on (\S+)/.exec(output)![1]!;
      const body = JSON.stringify({ title: 'x'.repeat(200) });
      const refused = await fetch(`${base}/books`, {
        method: 'POST',
        headers: { Authorization: 'Bearer a', 'Content-Type': 'application/json' },
        body,
      });
      expect([refused.status, refused.headers.get('X-Shelf')]).toEqual([413, 'yes']);
      await expect.poll(() => output, { timeout: 10_000 }).toMatch(/POST \/v1\/books → 413 \(.*larger than 100 bytes/);
    } finally {
      child.kill('SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);
});

describe('contract-kit mock on a port in use', () => {
  it('says so and ends, with Prism', async () => {
    const busy = createServer().listen(0, '127.0.0.1');
    await once(busy, 'listening');
    try {
      const port = String((busy.address() as AddressInfo).port);
      const ended = await run(['mock', '--spec', fixture('orders-3.1.yaml'), '--port', port], fileURLToPath(new URL('.', import.meta.url)));
      expect(ended.code).toBe(1);
      expect(ended.stderr).toMatch(/EADDRINUSE/);
    } finally {
      busy.close();
    }
  }, 60_000);
});

describe('the document Prism is given', () => {
  it('refers to shared responses and schemas instead of copying them into each operation', () => {
    const paths = Object.fromEntries(
      Array.from({ length: 300 }, (_, i) => [
        `/things${i}/{id}`,
        // An error body of any value (an empty schema), as AWS contracts declare them, each its own.
        {
          get: {
            responses: {
              '200': { $ref: '#/components/responses/Thing' },
              '400': { description: 'no', content: { 'application/json': { schema: {} } } },
            },
          },
        },
      ]),
    );
    const properties = Object.fromEntries(
      Array.from({ length: 60 }, (_, i) => [`field${i}`, { type: 'string', description: 'x'.repeat(100) }]),
    );
    const contract: OpenApiDocument = parseContract(
      JSON.stringify({
        openapi: '3.0.3',
        info: { title: 't', version: '1' },
        paths,
        components: {
          schemas: { Thing: { type: 'object', properties } },
          responses: { Thing: { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } } } },
        },
      }),
      'big.json',
    );
    const given = JSON.stringify(prismDocument(contract, listOperations(contract)).document).length;
    expect(given).toBeLessThan(2 * JSON.stringify(contract).length);
  });
});
