import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadContract, type AnyHandler, type ContractServerOptions, type HttpProblem } from 'contract-kit';
import {
  conformanceCases,
  ContractChecker,
  propertyCases,
  runConformance,
  type CaseOutcome,
  type CredentialSource,
} from 'contract-kit/testing';
import { send } from '../src/testing/answers.js';
import { formFields } from '../src/testing/request-bodies.js';
import { serve } from './serve.js';

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));

/** Serves a fixture contract, runs its conformance suite against it, and returns each case's outcome. */
async function conformanceOf(
  name: string,
  basePath: string,
  options: Omit<ContractServerOptions, 'contract'>,
  credential: CredentialSource,
  runs = 0,
) {
  const doc = await loadContract(fixture(name));
  const served = await serve(name, options);
  // With runs, the property cases (generated requests) in place of the fixed ones.
  const cases = runs > 0 ? propertyCases(doc, { runs, seed: 1 }) : conformanceCases(doc);
  try {
    return await runConformance(cases, { baseUrl: `${served.origin}${basePath}`, credential }, new ContractChecker(doc));
  } finally {
    await served.close();
  }
}

const failures = (outcomes: Map<string, CaseOutcome>) =>
  [...outcomes].filter(([, outcome]) => !('passed' in outcome)).map(([name, outcome]) => `${name}: ${JSON.stringify(outcome)}`);

const library = {
  handlers: {
    listBooks: () => ({ status: 200, body: [{ title: 'Dune', copies: 2 }] }),
    addBook: ({ body }) => ({ status: 201, body: { ...(body as object), tags: [] } }),
    putCover: () => ({ status: 204 }),
    addNote: ({ body }) => ({ status: 201, body: `kept: ${String(body).slice(0, 10)}` }),
    uploadScan: ({ body }) => ({ status: 201, body: { page: (body as { page: number }).page, bytes: 1, filename: 'scan' } }),
  } satisfies Record<string, AnyHandler>,
  // The contract's own error body: `{ error: { kind, text, fields } }`.
  errors: (problem: HttpProblem, { contentType }: { contentType: string }) => ({
    contentType,
    body: { error: { kind: problem.code, text: problem.message, fields: problem.details.map((d) => d.field) } },
  }),
  security: {
    headerKey: (c: object) => ('key' in c && c.key === 'k-1' ? { caller: 'desk' } : undefined),
    queryKey: (c: object) => ('key' in c && c.key === 'k-2' ? { caller: 'kiosk' } : undefined),
    oauth: (c: object) =>
      'token' in c && c.token === 'writer' ? { caller: 'librarian', scopes: ['books:read', 'books:write'] } : undefined,
  },
};
const libraryCredentials: CredentialSource = (scheme) => ({ headerKey: 'k-1', queryKey: 'k-2', oauth: 'writer' })[scheme];

const rail = {
  handlers: {
    getStations: () => ({ status: 200, headers: { 'X-Total-Count': 1 }, body: [{ id: 1, name: 'Central' }] }),
    getStationsByStationId: ({ path }) => ({ status: 200, body: { id: path['station-id'], name: 'Central' } }),
    findStationMap: () => ({ status: 200, body: Buffer.from([0x89, 0x50, 0x4e, 0x47]) }),
    createBooking: () => ({ status: 201, body: { id: 'b-1', station: 1, seats: 1 } }),
    deleteOperation: () => ({ status: 200, body: 'booking b-1' }),
  } satisfies Record<string, AnyHandler>,
  security: {
    basicAuth: (c: object) => ('password' in c && c.password === 'secret' ? { caller: 'ada' } : undefined),
    bearerAuth: (c: object) => ('token' in c && c.token === 'good' ? { caller: 'holder' } : undefined),
  },
};
const railCredentials: CredentialSource = (scheme) => (scheme === 'basicAuth' ? { username: 'ada', password: 'secret' } : undefined);

describe('the conformance suite, made from a contract alone', () => {
  it('passes every case against a server that keeps a 3.0 contract (apiKeys, OAuth 2, form, multipart, bytes, its own error body)', async () => {
    const outcomes = await conformanceOf('library-3.0.yaml', '/library', library, libraryCredentials);
    expect(failures(outcomes)).toEqual([]);
    // Each kind of case is there: a valid request, no credentials, a broken input, a media type, routing.
    expect([...outcomes.keys()]).toEqual(
      expect.arrayContaining([
        'uploadScan: a valid request (POST /scans) is answered as the contract declares',
        'putCover: a request without credentials is refused with 401',
        'putCover: a path parameter isbn its schema refuses is refused with 400',
        'addBook: a body of a media type it does not declare is refused with 415',
        'a path outside the contract is answered 404',
      ]),
    );
  });

  it('passes every case against a server that keeps a 3.1 contract (HTTP Basic, XML, odd operationIds)', async () => {
    const outcomes = await conformanceOf('rail-3.1.yaml', '/api+v2', rail, railCredentials);
    expect(failures(outcomes)).toEqual([]);
    expect(outcomes.size).toBeGreaterThan(8);
  });

  it('fails the cases whose answers break the contract, and names a stub as the only thing wrong with its operation', async () => {
    const { putCover: _unwritten, ...written } = library.handlers;
    const outcomes = await conformanceOf(
      'library-3.0.yaml',
      '/library',
      {
        ...library,
        // An error body without the text the contract requires, and a handler whose answer the kit refuses to send.
        errors: (problem) => ({ contentType: 'application/json', body: { error: { kind: problem.code } } }),
        handlers: { ...written, listBooks: () => ({ status: 200, body: [{ title: 7 }] }) },
      },
      libraryCredentials,
    );
    const failed = new Map([...outcomes].filter(([, o]) => 'failed' in o).map(([name, o]) => [name, (o as { failed: string }).failed]));
    expect(failed.get('listBooks: a valid request (GET /books) is answered as the contract declares')).toMatch(
      /GET \/books → 500 breaks the contract:\n {2}- a valid request was answered 500: .*\n {2}- status 500 is not declared for listBooks/,
    );
    expect(failed.get('putCover: a valid request (PUT /books/{isbn}/cover) is answered as the contract declares')).toMatch(
      /→ 501 breaks the contract:\n {2}- putCover is not implemented yet: its handler answers 501 until it is written$/,
    );
    for (const name of [
      'addBook: a request without credentials is refused with 401',
      'putCover: a path parameter isbn its schema refuses is refused with 400',
      'addBook: a body of a media type it does not declare is refused with 415',
    ])
      expect(failed.get(name), name).toMatch(/body \/error must have required property 'text'/);
    expect(outcomes.get('uploadScan: a valid request (POST /scans) is answered as the contract declares')).toEqual({ passed: true });
  });

  it('skips, saying why, the cases it has no credential for', async () => {
    const outcomes = await conformanceOf('rail-3.1.yaml', '/api+v2', rail, () => undefined);
    expect(outcomes.get('createBooking: a valid request (POST /bookings) is answered as the contract declares')).toEqual({
      skipped: 'createBooking: no credential was given for basicAuth, bearerAuth',
    });
  });

  it('holds a server to generated requests: valid ones answered as declared, invalid ones refused with 400', async () => {
    const libraryOutcomes = await conformanceOf('library-3.0.yaml', '/library', library, libraryCredentials, 100);
    const railOutcomes = await conformanceOf('rail-3.1.yaml', '/api+v2', rail, railCredentials, 100);
    expect(failures(railOutcomes)).toEqual([
      // A path parameter of any string: no text breaks it.
      'deleteOperation: 100 generated invalid requests are refused with 400: {"skipped":"deleteOperation: it has no input a schema can refuse"}',
    ]);
    expect(railOutcomes.get('getStations: 100 generated invalid requests are refused with 400')).toEqual({ passed: true });
    // Forms, multipart and text bodies are made as the fixed cases make them; only JSON bodies are edited.
    expect(failures(libraryOutcomes).filter((f) => !f.includes('"skipped":"'))).toEqual([]);
    expect(libraryOutcomes.get('putCover: 100 generated invalid requests are refused with 400')).toEqual({ passed: true });
  }, 60_000);

  it('reports a generated request the server answers against the contract, with the seed that replays it', async () => {
    const outcomes = await conformanceOf(
      'rail-3.1.yaml',
      '/api+v2',
      // Refuses a limit above 9 that the contract allows (up to 50).
      { ...rail, handlers: { ...rail.handlers, getStations: ({ query }) => ({ status: Number(query.limit) > 9 ? 500 : 200, body: [] }) } },
      railCredentials,
      100,
    );
    const outcome = outcomes.get('getStations: 100 generated valid requests are answered as the contract declares');
    expect(outcome).toHaveProperty('failed');
    const limit = /Counterexample: \[GET \/stations\?limit=(\d+) /.exec((outcome as { failed: string }).failed)?.[1];
    expect(Number(limit)).toBeGreaterThan(9);
    expect((outcome as { failed: string }).failed).toMatch(/\{ seed: 1, path: "[\d:]+"/);
    expect((outcome as { failed: string }).failed).toMatch(/a valid request was answered 500/);
  }, 60_000);
});

describe('the fields of a form body', () => {
  it('leave out an empty list, as a form sends it, unless the schema requires the field', () => {
    // An empty item would be refused where the items have an enum ('pos' of a public contract).
    expect(formFields({ text: [], pos: [], lang: 'en', tags: ['a', 'b'] }, ['text'])).toEqual([
      ['text', ''],
      ['lang', 'en'],
      ['tags', 'a'],
      ['tags', 'b'],
    ]);
  });
});

describe('generated values', () => {
  it('stay small enough for a URL or a header, however long a maxLength allows (Node refuses over 16 KiB of them)', async () => {
    const { default: fc } = await import('fast-check');
    const { ContractSchemas, SchemaValues } = await import('contract-kit/testing');
    const values = new SchemaValues(new ContractSchemas({ openapi: '3.1.0', info: { title: 't', version: '1' }, paths: {} }));
    const samples = fc.sample(values.valid({ type: 'string', minLength: 1, maxLength: 150000 }), { numRuns: 100, seed: 1 });
    const longest = Math.max(...samples.map((value) => encodeURIComponent(JSON.stringify(value)).length));
    expect(longest).toBeLessThanOrEqual(4096);
  });
  it('make arrays of a few items, however many a maxItems allows, and as many as a minItems asks', async () => {
    const { default: fc } = await import('fast-check');
    const { ContractSchemas, SchemaValues } = await import('contract-kit/testing');
    const values = new SchemaValues(new ContractSchemas({ openapi: '3.1.0', info: { title: 't', version: '1' }, paths: {} }));
    const many = fc.sample(values.valid({ type: 'array', items: { type: 'integer' }, maxItems: 100000 }), { numRuns: 30, seed: 1 });
    // json-schema-faker makes at most 10; the edits of a value may add a few.
    expect(Math.max(...many.map((value) => (value as unknown[]).length))).toBeLessThanOrEqual(20);
    const atLeast = fc.sample(values.valid({ type: 'array', items: { type: 'integer' }, minItems: 70, maxItems: 100000 }), {
      numRuns: 30,
      seed: 1,
    });
    for (const value of atLeast) expect((value as unknown[]).length).toSatisfy((n: number) => n >= 70 && n <= 80);
  });
  it('hold no integer past 2^53-1, which the server refuses as a number JSON cannot carry exactly', async () => {
    const { default: fc } = await import('fast-check');
    const { ContractSchemas, SchemaValues } = await import('contract-kit/testing');
    const values = new SchemaValues(new ContractSchemas({ openapi: '3.1.0', info: { title: 't', version: '1' }, paths: {} }));
    const numbers = (v: unknown): number[] =>
      typeof v === 'number' ? [v] : typeof v === 'object' && v !== null ? Object.values(v).flatMap(numbers) : [];
    for (const schema of [{ type: 'object' }, { type: 'integer' }, { type: 'number' }, { type: 'array', items: { type: 'integer' } }]) {
      const made = fc.sample(values.valid(schema), { numRuns: 300, seed: 3 }).flatMap(numbers);
      expect(made.length, JSON.stringify(schema)).toBeGreaterThan(0);
      for (const n of made) expect(!Number.isInteger(n) || Number.isSafeInteger(n), `${n} for ${JSON.stringify(schema)}`).toBe(true);
    }
  });
});

describe('a request that meets a connection the server closes', () => {
  it('is sent again once, on a new connection', async () => {
    let requests = 0;
    const server = createServer((req, res) => {
      requests++;
      // The first request meets its connection closed, as when a keep-alive ends just as it is sent.
      if (requests === 1) return void req.socket.destroy();
      res.end('{}');
    }).listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const observed = await send({ baseUrl: origin, credential: () => undefined }, { method: 'GET', path: '/', query: [], headers: {} });
      expect(observed.status).toBe(200);
      expect(requests).toBe(2);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
