import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listOperations, loadContract, parseContract } from 'contract-kit';
import { conformanceCases, ContractChecker, runConformance } from 'contract-kit/testing';
import { serve } from './serve.js';

type Served = Awaited<ReturnType<typeof serve>>;

const NAMES = [
  'ListDomains',
  'DescribeDomain',
  'RemoveTags',
  'CreateThing',
  'DestroyThing',
  'deleteThing',
  'deleteThingVersion',
  'createBetaResponse',
  'changeRequest',
  'diffRequest',
  'upload',
  'getName',
  'associate',
  'generateAccessToken',
  'generateIdToken',
];

describe('operations that share a URL', () => {
  let served: Served;
  beforeAll(async () => {
    served = await serve('shared-urls-3.0.yaml', {
      handlers: Object.fromEntries(
        NAMES.map((name) => [
          name,
          ({ path }: { path: Record<string, unknown> }) => ({ status: 200, body: { operation: name, params: path } }),
        ]),
      ),
    });
  });
  afterAll(() => served.close());

  /** The operation that answered a request, and the path parameters it got; or the status. */
  const answered = async (path: string, init?: RequestInit) => {
    const response = await served.fetch(path, init);
    return response.status === 200 ? ((await response.json()) as { operation: string; params: object }) : response.status;
  };
  const amz = (target: string) => ({
    method: 'POST',
    headers: { 'X-Amz-Target': target, 'Content-Type': 'application/x-amz-json-1.1' },
    body: '{"Name":"a"}',
  });

  it('routes by the query parameter a path key names after #, and by the header a name starting X- is', async () => {
    expect(await answered('/api/?Action=ListDomains')).toMatchObject({ operation: 'ListDomains' });
    expect(await answered('/api/?Action=DescribeDomain&DomainName=d')).toMatchObject({ operation: 'DescribeDomain' });
    expect(await answered('/api/', amz('Things.CreateThing'))).toMatchObject({ operation: 'CreateThing' });
    expect(await answered('/api/', amz('Things.DestroyThing'))).toMatchObject({ operation: 'DestroyThing' });
  });

  it('refuses a request naming none of the operations of its URL with 400, naming what tells them apart', async () => {
    const response = await served.fetch('/api/?Action=Nope');
    expect(response.status).toBe(400);
    expect(JSON.stringify(await response.json())).toContain('must be one of \\"ListDomains\\", \\"RemoveTags\\", \\"DescribeDomain\\"');
    expect((await served.fetch('/api/', { method: 'DELETE' })).status).toBe(405);
  });

  it('routes by a query parameter that must be there, and by a fixed one after ?', async () => {
    expect(await answered('/api/things/t1?versionId=3', { method: 'DELETE' })).toEqual({
      operation: 'deleteThingVersion',
      params: { id: 't1' },
    });
    expect(await answered('/api/things/t1', { method: 'DELETE' })).toEqual({ operation: 'deleteThing', params: { id: 't1' } });
    expect(await answered('/api/responses?beta=true', { method: 'POST' })).toMatchObject({ operation: 'createBetaResponse' });
    expect(await answered('/api/responses', { method: 'POST' })).toBe(400);
    // A fixed value routes to its operation; any other, to the operation of the bare URL.
    expect(await answered('/api/requests/r1?cmd=diff', { method: 'POST' })).toMatchObject({ operation: 'diffRequest' });
    expect(await answered('/api/requests/r1?cmd=close', { method: 'POST' })).toMatchObject({ operation: 'changeRequest' });
  });

  it('routes a literal after a parameter in one segment beside the bare parameter, as Google`s custom methods are', async () => {
    expect(await answered('/api/v1/abc:generateAccessToken', { method: 'POST' })).toEqual({
      operation: 'generateAccessToken',
      params: { name: 'abc' },
    });
    expect(await answered('/api/v1/abc:generateIdToken', { method: 'POST' })).toMatchObject({ operation: 'generateIdToken' });
    expect(await answered('/api/v1/abc:associate')).toEqual({ operation: 'associate', params: { name: 'abc' } });
    expect(await answered('/api/v1/abc')).toEqual({ operation: 'getName', params: { name: 'abc' } });
    expect(await answered('/api/v1/abc', { method: 'POST' })).toBe(405);
  });

  it('answers 501 for an operation with a defect of its own, names each at start, and serves the rest', async () => {
    expect(await answered('/api/pages/p2')).toBe(501);
    expect(await answered('/api/stray')).toBe(501);
    expect(await answered('/api/spaced')).toBe(501);
    expect(await answered('/api/unknown-scheme')).toBe(501);
    const said = served.warnings.join('\n');
    expect(said).toContain('5 operations answer 501 for a defect of the contract');
    expect(said).toContain(
      'Apps_ListNext (GET /pages/{nextLink}#Apps_ListNext): the contract gives GET /pages/{nextLink} to Apps_ListNext, Groups_ListNext',
    );
    expect(said).toContain('its path parameter strayId is not in its path /stray');
    expect(said).toContain('its security scheme spaced asks for the header "Service API Key", which is no header name a request can carry');
  });

  it('passes contract-kit conform: each request made from the contract reaches its operation', async () => {
    const doc = await loadContract(new URL('./fixtures/shared-urls-3.0.yaml', import.meta.url).pathname);
    expect(listOperations(doc).find((op) => op.name === 'CreateThing')).toMatchObject({
      urlPath: '/',
      dispatch: [{ in: 'header', name: 'X-Amz-Target', value: 'Things.CreateThing' }],
    });
    // A credential for every scheme, one an operation with a defect asks for in a header no request can carry included.
    const outcomes = await runConformance(
      conformanceCases(doc),
      { baseUrl: `${served.origin}/api`, credential: () => 'k' },
      new ContractChecker(doc),
    );
    const failed = [...outcomes].filter(([, o]) => 'failed' in o);
    expect(failed).toEqual([]);
    const skipped = [...outcomes].filter(([, o]) => 'skipped' in o).map(([name]) => name.split(':')[0]);
    expect(new Set(skipped)).toEqual(
      new Set(['Apps_ListNext', 'Groups_ListNext', 'getStray', 'getSpaced', 'getUnknownScheme', 'searchThings']),
    );
  });

  it('leaves out of conform`s routing cases a contract whose only operation has a defect', async () => {
    const doc = parseContract(
      `openapi: 3.0.3
info: { title: t, version: '1' }
security: [{ spaced: [] }]
paths:
  /compile:
    post: { responses: { '200': { description: ok } } }
components:
  securitySchemes:
    spaced: { type: apiKey, in: header, name: Service API Key }
`,
      'spaced.yaml',
    );
    const outcomes = await runConformance(
      conformanceCases(doc),
      { baseUrl: `${served.origin}/api`, credential: () => 'k' },
      new ContractChecker(doc),
    );
    expect([...outcomes].filter(([, o]) => 'failed' in o)).toEqual([]);
  });
});
