import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSpec } from '../../src/contract/load-spec.js';
import { ContractChecker } from '../contract/conformance.js';
import { exchange, parseResponses, type RawOutcome } from '../support/raw-http.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

// A chunked body whose framing breaks after its request's headers: Node has handed the request
// to the app, which waits for the rest of the body, when its parser fails. The client must get
// its 400 at once, not the end of the connection at REQUEST_TIMEOUT_MS (30 s).

const PET = '{"name":"Rex","categoryId":3}';
const hex = (text: string) => Buffer.byteLength(text).toString(16);

/** Each broken framing of the same body, and the error Node's parser reports for it. */
const FRAMINGS: [name: string, chunks: string][] = [
  ['a chunk size that is not hexadecimal (HPE_INVALID_CHUNK_SIZE)', `zz\r\n${PET}\r\n0\r\n\r\n`],
  ['chunk lines ended by LF alone (HPE_CR_EXPECTED)', `${hex(PET)}\n${PET}\n0\n\n`],
  ['a 20 KB chunk extension (HPE_CHUNK_EXTENSIONS_OVERFLOW)', `${hex(PET)};ext=${'e'.repeat(20 * 1024)}\r\n${PET}\r\n0\r\n\r\n`],
];

/** Well under the 30 s request timeout: a loaded machine answers in milliseconds. */
const AT_ONCE_MS = 2_000;
/** How long after the headers (and a first valid chunk) the broken part comes, when it comes later. */
const LATER_MS = 200;

let server: TestServer;
let key: string;
const checker = new ContractChecker(loadSpec());

beforeAll(async () => {
  server = await startTestServer();
  key = await server.newKey('pro');
});
afterAll(() => server?.close());

/** A POST /v1/pets with a chunked body, without its chunks; kept alive unless `close`. */
const head = (close = true) =>
  `POST /v1/pets HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\n` +
  `Transfer-Encoding: chunked\r\n${close ? 'Connection: close\r\n' : ''}\r\n`;

/** Sends `parts` on one connection and says what came back, and how long after the last part was written. */
async function timed(parts: string[], gapMs = 0): Promise<{ outcome: RawOutcome; ms: number }> {
  const started = performance.now();
  const outcome = await exchange(
    server.origin,
    parts.map((part) => Buffer.from(part, 'latin1')),
    gapMs,
  );
  return { outcome, ms: performance.now() - started - gapMs * (parts.length - 1) };
}

describe('a chunked body whose framing breaks', () => {
  for (const [name, chunks] of FRAMINGS) {
    for (const [when, parts, gapMs] of [
      ['sent with the headers', () => [head() + chunks], 0],
      // The app is reading the body by then.
      ['after a first valid chunk', () => [`${head()}5\r\n{"nam\r\n`, chunks], LATER_MS],
    ] as const) {
      it(`${name}, ${when}: 400 at once in the Error shape, the connection closed, nothing stored`, async () => {
        const before = (await server.store.listPets({ limit: 1000 })).length;
        const { outcome, ms } = await timed(parts(), gapMs);
        console.log(`${name}, ${when}: answered in ${Math.round(ms)} ms`);
        expect(outcome.kind, 'an answer, not a closed connection').toBe('response');
        if (outcome.kind !== 'response') return;
        const { response } = outcome;
        expect(ms).toBeLessThan(AT_ONCE_MS);
        expect(response.status).toBe(400);
        expect(JSON.parse(response.body)).toMatchObject({ code: 'invalid_request', status: 400, details: [{ field: 'request' }] });
        expect(response.headers.get('connection')).toBe('close');
        expect(checker.checkResponse('createPet', { status: response.status, headers: response.headers, text: response.body })).toEqual([]);
        expect((await server.store.listPets({ limit: 1000 })).length).toBe(before);
      });
    }
  }

  it('answers a request pipelined before it first, then refuses it', async () => {
    const before = (await server.store.listPets({ limit: 1000 })).length;
    const post = `${head(false).replace('Transfer-Encoding: chunked', `Content-Length: ${PET.length}`)}${PET}`;
    const { outcome, ms } = await timed([post + head() + FRAMINGS[0]![1]]);
    expect(outcome.kind).toBe('response');
    expect(ms).toBeLessThan(AT_ONCE_MS);
    const responses = outcome.kind === 'response' ? parseResponses(outcome.raw) : [];
    expect(responses.map((r) => r.status)).toEqual([201, 400]);
    expect((await server.store.listPets({ limit: 1000 })).length).toBe(before + 1);
  });

  it('still serves the next request normally', async () => {
    const response = await fetch(`${server.baseUrl}/pets?limit=1`, { headers: { Authorization: `Bearer ${key}` } });
    expect(response.status).toBe(200);
  });
});
