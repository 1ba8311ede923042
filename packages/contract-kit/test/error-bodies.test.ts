import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { loadContract, problemDetails } from 'contract-kit';
import { conformanceCases, ContractChecker, runConformance } from 'contract-kit/testing';
import { serve } from './serve.js';

type Served = Awaited<ReturnType<typeof serve>>;

/** What an answer was: its status, media type and body (parsed when JSON). */
async function answer(response: Response) {
  const text = await response.text();
  const type = response.headers.get('content-type')?.split(';')[0] ?? null;
  return { status: response.status, type, body: type?.endsWith('json') ? (JSON.parse(text) as unknown) : text };
}

describe('error answers in the shape the contract declares', () => {
  let served: Served;
  const key = { 'X-Api-Key': 'k' };
  beforeAll(async () => {
    served = await serve('errors-3.0.yaml', {
      handlers: { listDocuments: () => ({ status: 200, body: [] }) },
      security: { apiKey: ({ key }: { key?: string }) => (key === 'k' ? { caller: 'k' } : undefined) } as never,
    });
  });
  afterAll(() => served.close());

  it('fills the schema of an operation`s default response: petstore-expanded`s {code, message}', async () => {
    expect(await answer(await served.fetch('/api/pets/x', { headers: key }))).toEqual({
      status: 400,
      type: 'application/json',
      body: { code: 400, message: expect.any(String) as string },
    });
    expect(await answer(await served.fetch('/api/pets/1'))).toMatchObject({ status: 401, type: 'application/json', body: { code: 401 } });
  });

  it('fills a nested error object, naming the status as the enum of the contract writes it', async () => {
    expect(await answer(await served.fetch('/api/documents?pageSize=1000', { headers: key }))).toEqual({
      status: 400,
      type: 'application/json',
      body: { error: { code: 400, message: expect.any(String) as string, status: 'INVALID_ARGUMENT' } },
    });
    expect(await answer(await served.fetch('/api/documents'))).toMatchObject({ body: { error: { code: 401, status: 'UNAUTHENTICATED' } } });
  });

  it('writes a vendor JSON media type, an enum`s code, a message cut to its maxLength and each invalid field', async () => {
    const refused = await answer(
      await served.fetch('/api/token', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"scope":"x"}' }),
    );
    expect(refused).toMatchObject({ status: 400, type: 'application/vnd.example.v2+json', body: { error: 'invalid_request' } });
    const body = refused.body as { error_description: string; errors: { field: string; message: string }[] };
    expect(body.error_description.length).toBeLessThanOrEqual(40);
    expect(body.errors).toEqual(
      expect.arrayContaining([expect.objectContaining({ field: expect.stringContaining('grant_type') as string })]),
    );
    expect(Object.keys(body).sort()).toEqual(['error', 'error_description', 'errors']);
  });

  it('sends no body where the contract declares none, and text where it declares text', async () => {
    expect(await answer(await served.fetch('/api/reports'))).toEqual({ status: 401, type: null, body: '' });
    expect(await answer(await served.fetch('/api/reports', { headers: key }))).toMatchObject({
      status: 501,
      type: 'application/problem+json',
    });
  });

  it('gives a required property the problem says nothing of a value its schema takes', async () => {
    const { body } = await answer(await served.fetch('/api/traces'));
    expect(body).toEqual({ message: expect.any(String) as string, traceId: expect.stringMatching(/^[0-9a-f]{32}$/) as string });
  });

  it('builds the parts of an allOf and the properties beside them, in one body', async () => {
    expect(await answer(await served.fetch('/api/videos'))).toEqual({
      status: 401,
      type: 'application/json',
      body: { _type: expect.any(String) as string, errors: [] },
    });
  });

  it('passes conform`s requests without credentials: a key the contract also declares as a header parameter is left out', async () => {
    const doc = await loadContract(fileURLToPath(new URL('./fixtures/errors-3.0.yaml', import.meta.url)));
    const outcomes = await runConformance(
      conformanceCases(doc),
      { baseUrl: `${served.origin}/api`, credential: () => 'k' },
      new ContractChecker(doc),
      (c) => c.kind === 'credentials',
    );
    // listAudits declares its 401 in XML alone, which the kit writes no error in (see below).
    expect([...outcomes].filter(([name, o]) => 'failed' in o && !name.startsWith('listAudits:'))).toEqual([]);
  });

  it('answers a body that is one of an enum`s values, typed by them', async () => {
    expect(await answer(await served.fetch('/api/codes?page=10', { headers: key }))).toEqual({
      status: 400,
      type: 'application/json',
      body: '0 (Unknown)',
    });
  });

  it('writes an error body whose schema is an object as JSON in the media type declared for it, audio/mpeg too', async () => {
    for (const [headers, status] of [[key, 400] as const, [{}, 401] as const]) {
      const response = await served.fetch('/api/recordings/x.mp3', { headers });
      expect(response.status).toBe(status);
      expect(response.headers.get('content-type')).toMatch(/^audio\/mpeg/);
      expect(JSON.parse(await response.text())).toEqual({ code: status, message: expect.any(String) as string });
    }
  });

  it('answers RFC 9457 problem details where no body the kit can build fits, and says so at start', async () => {
    expect(await answer(await served.fetch('/api/audits'))).toMatchObject({ status: 401, type: 'application/problem+json' });
    expect(served.warnings.join('\n')).toMatch(/listAudits 401: image\/png, in which the kit writes no error/);
    expect(served.kit.errorBodies).toMatch(
      /^13 declared error responses: 10 built from their schemas, 1 as text, 1 without a body, as declared, 1 as RFC 9457 problem details in their stead/,
    );
  });

  it('writes an error body declared in XML as XML, and one of a vendor media type of an object as JSON', async () => {
    expect(await answer(await served.fetch('/api/faults/x', { headers: key }))).toEqual({
      status: 400,
      type: 'application/xml',
      body: expect.stringMatching(/^<\?xml version="1.0" encoding="UTF-8"\?>\n<Fault>\n {2}<message>.+<\/message>\n<\/Fault>/) as string,
    });
    const unauthorized = await served.fetch('/api/faults/1');
    expect(unauthorized.headers.get('content-type')).toMatch(/^application\/vnd\.goa\.error/);
    expect(await unauthorized.json()).toEqual({ name: expect.any(String) as string, message: expect.any(String) as string });
  });

  it('answers outside the operations in the contract`s most common error response for the status', async () => {
    expect(await answer(await served.fetch('/api/nothing', { headers: key }))).toEqual({
      status: 404,
      type: 'text/plain',
      body: 'Nothing is at /api/nothing.',
    });
    expect(await answer(await served.fetch('/api/documents', { method: 'DELETE', headers: key }))).toMatchObject({
      status: 405,
      type: 'application/json',
      body: { error: { code: 405 } },
    });
  });
});

describe('an errors function given', () => {
  it('builds every error body, and problemDetails keeps RFC 9457 however the contract declares them', async () => {
    const served = await serve('errors-3.0.yaml', { handlers: {}, errors: problemDetails });
    try {
      expect(await answer(await served.fetch('/api/pets/1'))).toMatchObject({ status: 401, type: 'application/problem+json' });
      expect(served.warnings.join('\n')).toMatch(/declares error bodies other than RFC 9457's, such as .*, and errors is problemDetails/);
      expect(served.kit.errorBodies).toBe('every error body built by the errors function');
    } finally {
      await served.close();
    }
  });
});
