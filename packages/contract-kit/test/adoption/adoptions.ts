/** What the adoption test does on each fixture contract, and what it expects of the served project. */
import { readFileSync } from 'node:fs';

/** One request of the adoption test and what it must be answered. */
interface Check {
  what: string;
  path: string;
  init?: RequestInit;
  status: number;
  headers?: Record<string, string | null>;
  body?: Record<string, unknown>;
}

export interface Adoption {
  name: string;
  /** The project's folder, and npm's name for it. */
  dir: string;
  /** What to copy from the fixtures, and where the contract's root file is in the project. */
  copy: string;
  spec: string;
  basePath: string;
  /** The handlers the test writes (replacing their stubs): each one's name and file. */
  handlers: { name: string; source: string }[];
  /** The project's src/security.ts, accepting the test's credentials. */
  security: string;
  /** Those credentials, as contract-kit conform takes them (`--credential SCHEME=VALUE`). */
  credentials: string[];
  /** The project's src/errors.ts, when the contract's error body is not init's RFC 9457 problem details. */
  errors?: string;
  /** An operation left a stub, which the server names at start. */
  stub: string;
  requests: Check[];
  /** A path the mock answers 200. */
  mockPath: string;
  removeOperation: (contract: string) => string;
  /** The project's contract-kit.config.mjs, written before generate runs, and the file its generate plugin writes. */
  config?: { text: string; writes: string };
}

/** The README's example configuration ("Generate plugins"): a plugin writing generated/routes.json. */
const README_PLUGIN = /## Generate plugins[\s\S]*?```js\n([\s\S]*?)```/.exec(
  readFileSync(new URL('../../README.md', import.meta.url), 'utf8'),
)![1]!;

const handler = (name: string, body: string) => `import type { TypedHandler } from 'contract-kit';
import type { Operations } from '../../generated/operations.js';
import type { Context } from '../context.js';

export const ${name}: TypedHandler<Operations['${name}'], Context> = () => ({ status: 200, body: ${body} });
`;

/** A handler of `name`, `fn` its function. */
const typed = (name: string, fn: string) => `import type { TypedHandler } from 'contract-kit';
import type { Operations } from '../../generated/operations.js';
import type { Context } from '../context.js';

export const ${name}: TypedHandler<Operations['${name}'], Context> = ${fn};
`;

const problem = (status: number) => ({ type: 'about:blank', status });
const form = { 'Content-Type': 'application/x-www-form-urlencoded' };
const json = { 'Content-Type': 'application/json' };

export const ADOPTIONS: Adoption[] = [
  {
    name: 'OpenAPI 3.0: apiKey, OAuth 2 scopes, form, multipart and bytes',
    dir: 'library',
    copy: 'library-3.0.yaml',
    spec: 'library-3.0.yaml',
    basePath: '/library',
    handlers: [{ name: 'listBooks', source: handler('listBooks', "[{ title: 'Emma', copies: 3 }]") }],
    security: `import type { Verifier } from 'contract-kit';

export const security: Record<string, Verifier> = {
  headerKey: (c) => ('key' in c && c.key === 'good' ? { caller: 'desk' } : undefined),
  queryKey: (c) => ('key' in c && c.key === 'good' ? { caller: 'kiosk' } : undefined),
  oauth: (c) => ('token' in c && c.token === 'good' ? { caller: 'librarian', scopes: ['books:write'] } : undefined),
};
`,
    credentials: ['headerKey=good', 'queryKey=good', 'oauth=good'],
    errors: `import type { ProblemFormatter } from 'contract-kit';

export const errors: ProblemFormatter = (problem, { contentType }) => ({
  contentType,
  body: { error: { kind: problem.code, text: problem.message, fields: problem.details.map((d) => d.field) } },
});
`,
    stub: 'putCover',
    requests: [
      { what: 'the handler written, public', path: '/books', status: 200, body: { 0: { title: 'Emma' } } },
      {
        what: 'a stub, with a key',
        path: '/books/9780441013593/cover',
        init: { method: 'PUT', headers: { 'X-Library-Key': 'good', 'Content-Type': 'application/octet-stream' }, body: 'bytes' },
        status: 501,
        body: { error: { kind: 'not_implemented' } },
      },
      {
        what: 'no key',
        path: '/books/9780441013593/cover',
        init: { method: 'PUT', headers: { 'Content-Type': 'application/octet-stream' }, body: 'bytes' },
        status: 401,
        headers: { 'www-authenticate': null },
        body: { error: { kind: 'unauthorized' } },
      },
      {
        what: 'no token',
        path: '/books',
        init: { method: 'POST', headers: form, body: 'title=Emma&copies=3' },
        status: 401,
        headers: { 'www-authenticate': 'Bearer realm="Library loans", scope="books:write"' },
      },
      {
        what: 'a form that breaks its schema',
        path: '/books',
        init: { method: 'POST', headers: { ...form, Authorization: 'Bearer good' }, body: 'title=&copies=none' },
        status: 400,
        headers: { 'content-type': 'application/json; charset=utf-8' },
        body: { error: { kind: 'invalid_request', fields: ['body.title', 'body.copies'] } },
      },
    ],
    mockPath: '/books',
    removeOperation: (contract) => contract.replace(/\n {2}\/scans:[\s\S]*?(?=\ncomponents:)/, ''),
  },
  {
    name: 'OpenAPI 3.1: HTTP Basic or bearer, XML, a webhook, two servers, odd operationIds',
    dir: 'rail',
    copy: 'rail-3.1.yaml',
    spec: 'rail-3.1.yaml',
    basePath: '/api+v2',
    handlers: [
      { name: 'getStations', source: handler('getStations', "[{ id: 1, name: 'Central' }]") },
      // A station it does not know is its declared 404, which npm test must not take for a route the app lacks.
      {
        name: 'getStationsByStationId',
        source: `import type { TypedHandler } from 'contract-kit';
import type { Operations } from '../../generated/operations.js';
import type { Context } from '../context.js';

const STATIONS = new Map([[7, 'Central']]);

export const getStationsByStationId: TypedHandler<Operations['getStationsByStationId'], Context> = ({ path }) => {
  const id = path['station-id'];
  const name = STATIONS.get(id);
  if (name === undefined) return { status: 404, body: { type: 'about:blank', title: 'Not Found', status: 404, detail: \`No station \${id}.\` } };
  return { status: 200, body: { id, name } };
};
`,
      },
    ],
    security: `import type { Verifier } from 'contract-kit';

export const security: Record<string, Verifier> = {
  basicAuth: (c) => ('password' in c && c.password === 'good' ? { caller: c.username } : undefined),
  bearerAuth: (c) => ('token' in c && c.token === 'good' ? { caller: 'holder' } : undefined),
};
`,
    credentials: ['basicAuth=ada:good', 'bearerAuth=good'],
    stub: 'createBooking',
    requests: [
      { what: 'the handler written, public', path: '/stations?limit=3', status: 200, body: { 0: { name: 'Central' } } },
      { what: 'a station the handler knows', path: '/stations/7', status: 200, body: { name: 'Central' } },
      {
        what: "the handler's declared 404, for a station it does not know",
        path: '/stations/1',
        status: 404,
        headers: { 'contract-unmatched': null },
        body: { status: 404, detail: 'No station 1.' },
      },
      {
        what: "the kit's own 404, for a path the contract lacks",
        path: '/stations/1/nowhere',
        status: 404,
        headers: { 'contract-unmatched': 'not_found' },
      },
      {
        what: 'a stub, with HTTP Basic',
        path: '/bookings',
        init: {
          method: 'POST',
          headers: { ...json, Authorization: `Basic ${Buffer.from('ada:good').toString('base64')}` },
          body: '{"station":1,"seats":2}',
        },
        status: 501,
      },
      {
        what: 'an XML body that is not XML',
        path: '/bookings',
        init: { method: 'POST', headers: { 'Content-Type': 'application/xml', Authorization: 'Bearer good' }, body: 'not xml at all' },
        status: 400,
        body: problem(400),
      },
      {
        what: 'no credentials',
        path: '/bookings',
        init: { method: 'POST', headers: json, body: '{"station":1,"seats":2}' },
        status: 401,
        headers: { 'www-authenticate': 'Basic realm="Rail bookings", Bearer realm="Rail bookings"' },
      },
      { what: 'a webhook is not routed', path: '/bookingConfirmed', init: { method: 'POST' }, status: 404 },
    ],
    mockPath: '/stations',
    removeOperation: (contract) => contract.replace(/\n {2}\/stations\/\{station-id\}\/map\.png:[\s\S]*?(?=\n {2}\/bookings:)/, ''),
  },
  {
    name: 'OpenAPI 3.1 in several files',
    dir: 'parts',
    copy: 'multi-file',
    spec: 'multi-file/openapi.yaml',
    basePath: '',
    handlers: [{ name: 'listParts', source: handler('listParts', "[{ sku: 'ABC-1234', weight: 2 }]") }],
    security: "import type { Verifier } from 'contract-kit';\n\nexport const security: Record<string, Verifier> = {};\n",
    credentials: [],
    stub: 'addPart',
    requests: [
      { what: 'the handler written', path: '/parts', status: 200 },
      { what: 'a stub', path: '/parts', init: { method: 'POST', headers: json, body: '{"sku":"ABC-1234","weight":2}' }, status: 501 },
      {
        what: 'a body against a schema of another file',
        path: '/parts',
        init: { method: 'POST', headers: json, body: '{"sku":"abc","weight":2}' },
        status: 400,
        body: { errors: [{ pointer: '/sku' }] },
      },
    ],
    mockPath: '/parts',
    removeOperation: (contract) => contract.replace(/\n {2}\/parts:\n {4}\$ref: \.\/paths\/parts\.yaml/, '\n  {}'),
    config: { text: README_PLUGIN, writes: 'generated/routes.json' },
  },
  {
    name: 'OpenAPI 3.2: server-sent events, JSON Lines both ways, QUERY, LINK and a querystring',
    dir: 'notes',
    copy: 'notes-3.2.yaml',
    spec: 'notes-3.2.yaml',
    basePath: '/api',
    handlers: [
      { name: 'listNotes', source: handler('listNotes', "[{ id: 1, text: 'one' }]") },
      {
        name: 'getNote',
        source: typed('getNote', "({ path }) => ({ status: 200, body: { id: path.noteId, text: 'one', pinned: null } })"),
      },
      { name: 'getPrefs', source: typed('getPrefs', '() => ({ status: 204 })') },
      {
        name: 'followNotes',
        source: typed(
          'followNotes',
          `({ headers }) => ({
  status: 200,
  // Three notes after the one Last-Event-ID names: their ids as exact as the header's digits.
  body: [1n, 2n, 3n].map((n) => ({
    event: 'added' as const,
    id: String(BigInt(headers['Last-Event-ID'] ?? '0') + n),
    data: JSON.stringify({ id: Number(n), text: \`note \${n}\` }),
  })),
})`,
        ),
      },
      {
        name: 'exportNotes',
        source: typed(
          'exportNotes',
          `() => ({
  status: 200,
  body: (async function* () {
    for (let id = 1; id <= 3; id++) yield { id, text: \`note \${id}\`, pinned: id === 1 ? true : null };
  })(),
})`,
        ),
      },
      {
        name: 'importNotes',
        source: typed(
          'importNotes',
          `async ({ body }) => {
  for await (const note of body) if (note.text === '') throw new Error('an item its schema refuses reached the handler');
  return { status: 204 };
}`,
        ),
      },
      { name: 'queryNotes', source: typed('queryNotes', '() => ({ status: 200 })') },
      { name: 'linkNote', source: typed('linkNote', '() => ({ status: 204 })') },
      {
        name: 'searchNotes',
        source: typed('searchNotes', '({ query }) => ({ status: 200, body: [{ id: query.limit ?? 1, text: query.text }] })'),
      },
    ],
    security: "import type { Verifier } from 'contract-kit';\n\nexport const security: Record<string, Verifier> = {};\n",
    credentials: [],
    stub: 'addNote',
    requests: [
      { what: 'the handler written', path: '/notes', status: 200, body: { 0: { text: 'one' } } },
      { what: 'a stub', path: '/notes', init: { method: 'POST', headers: json, body: '{"text":"hello"}' }, status: 501 },
      { what: 'a QUERY', path: '/notes', init: { method: 'QUERY', headers: json, body: '{}' }, status: 200 },
      { what: 'a QUERY whose body its schema refuses', path: '/notes', init: { method: 'QUERY', headers: json, body: '[]' }, status: 400 },
      { what: 'a LINK (additionalOperations)', path: '/notes/7', init: { method: 'LINK' }, status: 204 },
      { what: 'a querystring', path: '/search?text=cats&limit=2', status: 200, body: { 0: { id: 2, text: 'cats' } } },
      { what: 'a querystring its schema refuses', path: '/search?limit=2', status: 400 },
      {
        what: 'server-sent events',
        path: '/feed',
        init: { headers: { 'Last-Event-ID': '41' } },
        status: 200,
        headers: { 'content-type': 'text/event-stream; charset=utf-8' },
      },
      {
        what: 'a JSON Lines request',
        path: '/notes/import',
        init: { method: 'POST', headers: { 'Content-Type': 'application/jsonl' }, body: '{"text":"a"}\n{"text":"b"}\n' },
        status: 204,
      },
      {
        what: 'a JSON Lines request with an item its schema refuses',
        path: '/notes/import',
        init: { method: 'POST', headers: { 'Content-Type': 'application/jsonl' }, body: '{"text":"a"}\n{"text":""}\n' },
        status: 400,
      },
    ],
    mockPath: '/notes',
    removeOperation: (contract) => contract.replace(/\n {2}\/prefs:[\s\S]*?(?=\n {2}\/search:)/, ''),
  },
];
