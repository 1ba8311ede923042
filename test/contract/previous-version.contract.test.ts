// The previous major version served beside the new one, as docs/designers.md ("A new major
// version") promises: each under its own path, each answering and checked as its own contract
// says, both on the same store, the old one announcing its end.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { basePathsOf, majorOf } from 'contract-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSpec, type OpenApiDocument } from '../../src/contract/load-spec.js';
import type { PreviousVersion } from '../../src/contract/released-contracts.js';
import { ROOT } from '../support/run.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import type { ContractTarget } from './cases.js';
import { defineContractSuite } from './define-suite.js';
import { serverTarget } from './server-target.js';

const DEPRECATED_AT = '2026-01-01';
const SUNSET = '2030-12-05';

// openapi.yaml's major as released (its file in contracts/released, else openapi.yaml as it
// stands), its end scheduled in its info as the guide says; the next major is made from it.
const current = loadSpec();
const major = majorOf(current.info.version, 'openapi.yaml');
const label = `contracts/released/${major}.x.yaml`;
const released = existsSync(join(ROOT, label)) ? loadSpec(join(ROOT, label), label) : structuredClone(current);
released.info['x-deprecated-at'] = DEPRECATED_AT;
released.info['x-sunset'] = SUNSET;
const oldBase = basePathsOf(released)[0]!;
const newBase = `/v${major + 1}`;

type Limit = { schema: { maximum: number } };
const pageMaximum = (doc: OpenApiDocument) => (doc.components!.parameters as Record<string, Limit>).Limit!.schema.maximum;

/**
 * The next major as a designer makes it from the released one: the major raised, the servers
 * under its own path, and a change that breaks the old one's clients (listPets takes half as
 * many animals a page).
 */
function nextMajor(doc: OpenApiDocument): OpenApiDocument {
  const next = structuredClone(doc);
  delete next.info['x-deprecated-at'];
  delete next.info['x-sunset'];
  next.info.version = `${major + 1}.0.0`;
  next.servers = next.servers!.map((server) => ({ ...server, url: server.url.replace(new RegExp(`${oldBase}$`), newBase) }));
  (next.components!.parameters as Record<string, Limit>).Limit!.schema.maximum = Math.floor(pageMaximum(doc) / 2);
  return next;
}
const next = nextMajor(released);
const previous: PreviousVersion[] = [{ label, major, doc: released }];

let server: TestServer;
let nextTarget: ContractTarget;
let oldTarget: ContractTarget;

beforeAll(async () => {
  server = await startTestServer({ spec: next, previousVersions: previous });
  nextTarget = await serverTarget(server);
  oldTarget = { ...nextTarget, baseUrl: `${server.origin}${oldBase}` };
});
afterAll(() => server?.close());

defineContractSuite(`${next.info.version} under ${newBase}, beside ${major}.x`, () => nextTarget, { contract: next });
defineContractSuite(`the released ${major}.x under ${oldBase}, beside ${next.info.version}`, () => oldTarget, { contract: released });

describe('two major versions on one service', () => {
  const get = async (path: string) => fetch(`${server.origin}${path}`, { headers: { Authorization: `Bearer ${await server.newKey()}` } });
  const smallerPage = Math.floor(pageMaximum(released) / 2);

  it('serves the new major at the base path the test client takes from the contract', () => {
    expect(server.baseUrl).toBe(`${server.origin}${newBase}`);
  });

  it('answers each version as its own contract says: a page larger than the new major takes is the old one’s to give', async () => {
    expect((await get(`${oldBase}/pets?limit=${smallerPage + 1}`)).status).toBe(200);
    const refused = await get(`${newBase}/pets?limit=${smallerPage + 1}`);
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ code: 'invalid_request', details: [{ field: 'query.limit' }] });
  });

  it('keeps both on the same store: an animal added under one is listed under the other', async () => {
    const key = await server.newKey();
    const headers = { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' };
    const added = await fetch(`${server.origin}${oldBase}/pets`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ name: 'Olde', categoryId: 1 }),
    });
    expect(added.status).toBe(201);
    const { id } = (await added.json()) as { id: number };
    const listed = (await (await get(`${newBase}/pets?limit=${smallerPage}`)).json()) as { id: number }[];
    expect(listed.map((pet) => pet.id)).toContain(id);
  });

  it('sends Deprecation and Sunset, with the dates of its info, on every answer of the old version, and none on the new one', async () => {
    for (const path of [`${oldBase}/pets`, `${oldBase}/pets?limit=0`]) {
      const old = await get(path);
      expect(old.headers.get('deprecation'), path).toBe(`@${Date.parse(DEPRECATED_AT) / 1000}`);
      expect(old.headers.get('sunset'), path).toBe(new Date(SUNSET).toUTCString());
    }
    const answer = await get(`${newBase}/pets`);
    expect(answer.headers.get('deprecation')).toBeNull();
    expect(answer.headers.get('sunset')).toBeNull();
  });

  it('answers 410 under the old version from its sunset on, and the new one as before', async () => {
    server.clock.set(`${SUNSET}T00:00:00Z`);
    try {
      const gone = await get(`${oldBase}/pets`);
      expect(gone.status).toBe(410);
      expect(await gone.json()).toMatchObject({ code: 'gone', status: 410 });
      expect((await get(`${newBase}/pets`)).status).toBe(200);
    } finally {
      server.clock.set('2026-06-01T12:00:10Z');
    }
  });

  it('answers 404 under a version it does not serve', async () => {
    expect((await get(`/v${major + 2}/pets`)).status).toBe(404);
  });

  it('refuses to start when the new version is still served under the old one’s path, and says what to change', async () => {
    const samePath = { ...next, servers: released.servers };
    await expect(startTestServer({ spec: samePath, previousVersions: previous })).rejects.toThrow(
      `${label} (the released ${major}.x) and openapi.yaml would both be served under ${oldBase}: give openapi.yaml's servers a path of its new major version (such as ${newBase})`,
    );
  });
});
