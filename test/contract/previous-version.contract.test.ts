// The previous major version served beside the new one, as docs/designers.md ("A new major
// version") promises: each under its own path, each answering and checked as its own contract
// says, both on the same store, the old one announcing its end.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSpec, type OpenApiDocument } from '../../src/contract/load-spec.js';
import type { PreviousVersion } from '../../src/contract/released-contracts.js';
import { ROOT } from '../support/run.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import type { ContractTarget } from './cases.js';
import { defineContractSuite } from './define-suite.js';
import { serverTarget } from './server-target.js';

const SUNSET = '2030-12-05';

/** The released 1.x contract, its end scheduled in its info as the guide says. */
const released = loadSpec(join(ROOT, 'contracts/released/1.x.yaml'), 'contracts/released/1.x.yaml');
released.info['x-sunset'] = SUNSET;

/**
 * 2.0.0 as a designer makes it from openapi.yaml: the major raised, the servers under /v2, and a
 * change that breaks 1.x clients (listPets takes at most 50 animals a page, not 100).
 */
function nextMajor(doc: OpenApiDocument): OpenApiDocument {
  const next = structuredClone(doc);
  next.info.version = '2.0.0';
  next.servers = next.servers!.map((server) => ({ ...server, url: server.url.replace(/\/v1$/, '/v2') }));
  const limit = (next.components!.parameters as Record<string, { schema: { maximum: number } }>).Limit!;
  limit.schema.maximum = 50;
  return next;
}
const v2 = nextMajor(loadSpec());
const previous: PreviousVersion[] = [{ label: 'contracts/released/1.x.yaml', major: 1, doc: released }];

let server: TestServer;
let v2Target: ContractTarget;
let v1Target: ContractTarget;

beforeAll(async () => {
  server = await startTestServer({ spec: v2, previousVersions: previous });
  v2Target = await serverTarget(server);
  v1Target = { ...v2Target, baseUrl: `${server.origin}/v1` };
});
afterAll(() => server?.close());

defineContractSuite('2.0.0 under /v2, beside 1.x', () => v2Target, { contract: v2 });
defineContractSuite('the released 1.x under /v1, beside 2.0.0', () => v1Target, { contract: released });

describe('two major versions on one service', () => {
  const get = async (path: string) => fetch(`${server.origin}${path}`, { headers: { Authorization: `Bearer ${await server.newKey()}` } });

  it('serves 2.0.0 at the base path the test client takes from the contract', () => {
    expect(server.baseUrl).toBe(`${server.origin}/v2`);
  });

  it('answers each version as its own contract says: a page of 60 is 1.x’s to give, not 2.0.0’s', async () => {
    expect((await get('/v1/pets?limit=60')).status).toBe(200);
    const refused = await get('/v2/pets?limit=60');
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ code: 'invalid_request', details: [{ field: 'query.limit' }] });
  });

  it('keeps both on the same store: an animal added under one is listed under the other', async () => {
    const key = await server.newKey();
    const headers = { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' };
    const added = await fetch(`${server.origin}/v1/pets`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ name: 'Olde', categoryId: 1 }),
    });
    expect(added.status).toBe(201);
    const { id } = (await added.json()) as { id: number };
    const listed = (await (await get('/v2/pets?limit=50')).json()) as { id: number }[];
    expect(listed.map((pet) => pet.id)).toContain(id);
  });

  it('sends Deprecation and Sunset on every answer of the old version, and none on the new one', async () => {
    for (const path of ['/v1/pets', '/v1/pets?limit=0']) {
      const old = await get(path);
      expect(old.headers.get('deprecation'), path).toMatch(/^@\d+$/);
      expect(old.headers.get('sunset'), path).toBe(new Date(SUNSET).toUTCString());
    }
    const current = await get('/v2/pets');
    expect(current.headers.get('deprecation')).toBeNull();
    expect(current.headers.get('sunset')).toBeNull();
  });

  it('answers 404 under a version it does not serve', async () => {
    expect((await get('/v3/pets')).status).toBe(404);
  });

  it('refuses to start when the new version is still served under the old one’s path, and says what to change', async () => {
    await expect(startTestServer({ spec: loadSpec(), previousVersions: previous })).rejects.toThrow(
      /contracts\/released\/1\.x\.yaml \(the released 1\.x\) and openapi\.yaml would both be served under \/v1: give openapi\.yaml's servers a path of its new major version \(such as \/v2\)/,
    );
  });
});
