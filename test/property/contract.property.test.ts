import fc from 'fast-check';
import { propertyCases } from 'contract-kit/testing';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { loadSpec } from '../../src/contract/load-spec.js';
import { listOperations } from 'contract-kit';
import { dropTestSchemas, postgresEnabled } from '../support/services.js';
import { streamedOperations } from '../support/streamed-operations.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { encodeCursor } from '../../src/service/http/pagination.js';
import { ContractChecker } from '../contract/conformance.js';
import { propertyHarness, propertyRuns, UNLIMITED, type PropertyHarness } from './harness.js';

/**
 * Property-based tests from the contract: for every operation of openapi.yaml, thousands of
 * valid and invalid requests generated from its schemas go to the real server over HTTP, and
 * every response must stay inside the contract (oracle.ts) and agree with a model of the store
 * (store-model.ts): every field a valid NewPet carries comes back in the Pet, from POST, GET
 * and the list. On SQLite both kinds run; on PostgreSQL (when TEST_DATABASE_URL is set) the
 * valid ones, since invalid requests are refused before any store is asked. PROPERTY_RUNS sets
 * the runs per operation and kind (default 1000); PROPERTY_SEED and PROPERTY_PATH replay a
 * failure fast-check reported.
 */
const RUNS = propertyRuns(1000);
/**
 * Runs per kind of an operation that answers with a stream (GET /pets/feed): each valid request's
 * answer is read until it has sent nothing for half a second (contract-kit's readAnswerBody), as
 * a feed with nothing new never ends, so a thousand would take minutes.
 */
const STREAM_RUNS = Math.min(RUNS, 20);
const doc = loadSpec();
const streamed = streamedOperations(doc);
const runsOf = (operation: string) => (streamed.has(operation) ? STREAM_RUNS : RUNS);
const operations = listOperations(doc).map((op) => op.name);
const engines = postgresEnabled() ? (['sqlite', 'postgres'] as const) : (['sqlite'] as const);

describe.each(engines)('on %s', (engine) => {
  let server: TestServer;
  let harness: PropertyHarness;

  beforeAll(async () => {
    server = await startTestServer({ anonymousLimits: UNLIMITED, engine });
    harness = await propertyHarness(server, doc);
  });
  afterAll(async () => {
    await server?.close();
    await dropTestSchemas();
  });

  // PetName's pattern takes the invisible characters above U+FFFF as visible; its description
  // refuses a name of those only, so a generated valid body may hold one and get a 400.
  if (engine === 'sqlite')
    it('takes the 400 for a name of invisible characters above U+FFFF as the contract says', async () => {
      const createPet = harness.arbitraries.get('createPet')!;
      if (createPet.unsupported !== undefined) throw new Error(createPet.unsupported);
      const request = fc.sample(createPet.valid, { numRuns: 1, seed: 1 })[0]!;
      const body = { ...(request.typed!.body as object), name: '\u{E0000}\u{1D173}' };
      const invisible = { ...request, body: { ...request.body!, text: JSON.stringify(body) }, typed: { ...request.typed!, body } };
      await harness.check(fc.constant(invisible), 1);
    });

  describe.each(operations)('%s, generated from openapi.yaml', (operationId) => {
    /** The operation's arbitraries; an operation with a schema the generator makes no value for is skipped, with its note. */
    const arbitraries = (skip: (note: string) => never) => {
      const arbitraries = harness.arbitraries.get(operationId)!;
      if (arbitraries.unsupported === undefined) return arbitraries;
      console.warn(arbitraries.unsupported);
      return skip(arbitraries.unsupported);
    };

    it(`answers ${runsOf(operationId)} valid requests inside the contract and refuses none`, async ({ skip }) => {
      await harness.check(arbitraries(skip).valid, runsOf(operationId));
    }, 120_000);

    // Registered on SQLite only (not skipped elsewhere): the store plays no part in a refusal.
    if (engine === 'sqlite')
      it(`refuses ${runsOf(operationId)} invalid requests as the contract says`, async ({ skip }) => {
        await harness.check(arbitraries(skip).invalid, runsOf(operationId));
      }, 120_000);
  });
});

// contract-kit's own property cases, which any project runs on its contract (contract-kit conform
// --runs), on this one, on a server of their own: the Animal Store's key as the credential, its
// checker as the judge, and the values only the server can make (a cursor) or that must differ
// from request to request (an Idempotency-Key used again with another body is a 422).
describe("contract-kit's property cases, on SQLite", () => {
  let server: TestServer;
  let key: string;
  beforeAll(async () => {
    server = await startTestServer({ anonymousLimits: UNLIMITED });
    key = await server.newKey('enterprise', UNLIMITED);
  });
  afterAll(() => server?.close());

  const overrides = {
    'query.cursor': () => fc.integer({ min: 1, max: 5000 }).map(encodeCursor),
    'header.Idempotency-Key': () => fc.uuid(),
  };
  const cases = [
    ...propertyCases(doc, { runs: Math.ceil(RUNS / 5), seed: 1, overrides }).filter((p) => !streamed.has(p.name.split(':')[0]!)),
    ...propertyCases(doc, { runs: STREAM_RUNS, seed: 1, overrides }).filter((p) => streamed.has(p.name.split(':')[0]!)),
  ];
  for (const property of cases) {
    it(
      property.name,
      async () => {
        const cannot = await property.run({ baseUrl: server.baseUrl, credential: () => key }, new ContractChecker(doc));
        if (cannot !== undefined) throw new Error(`the case cannot be run: ${cannot}`);
      },
      120_000,
    );
  }
});
