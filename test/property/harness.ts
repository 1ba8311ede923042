import fc from 'fast-check';
import { generateKey } from '../../src/service/keys/key-format.js';
import { issueKey } from '../../src/service/keys/issue-key.js';
import { encodeCursor } from '../../src/service/http/pagination.js';
import type { OpenApiDocument } from '../../src/contract/load-spec.js';
import { ContractChecker, type ObservedResponse } from '../contract/conformance.js';
import type { TestServer } from '../support/test-server.js';
import { requestArbitraries, type GeneratedRequest } from './arbitraries-from-spec.js';
import { printable, sendRaw, sendTyped, toCurl, toWire, type RunKeys } from './exchange.js';
import { contractViolations } from './oracle.js';
import { StoreModel } from './store-model.js';

/** Runs per property: PROPERTY_RUNS, or the default given. */
export const propertyRuns = (fallback: number): number => Number(process.env.PROPERTY_RUNS ?? fallback);

/** Limits no run reaches: rate limiting has tests of its own; here every answer is about the request. */
export const UNLIMITED = { perMinute: 1_000_000_000, perDay: 1_000_000_000 };

/** Animals created before the runs, so that fetches and pages find some from the first run. */
const SEEDED_ANIMALS = 25;

/** Nothing a reader sees: white space and invisible characters only, as PetName's description lists them. */
const INVISIBLE_ONLY = /^[\p{White_Space}\p{Default_Ignorable_Code_Point}\p{Cf}\u2800]*$/u;

/**
 * A request as the contract's words judge it: PetName's pattern takes the invisible characters
 * above U+FFFF as visible (no pattern names them the same with and without the u flag), and its
 * description refuses a name of invisible characters only with 400, so such a valid body is one.
 */
function asDescribed(request: GeneratedRequest): GeneratedRequest {
  const name = (request.typed?.body as { name?: unknown } | null | undefined)?.name;
  if (request.mutation || typeof name !== 'string' || !INVISIBLE_ONLY.test(name)) return request;
  return { ...request, mutation: { kind: 'invisible name', field: 'body.name', expected: { status: 400, code: 'invalid_request' } } };
}

/**
 * Valid values the schema alone would not give: a cursor is only valid when the server made
 * it (made here as the server makes them, for ids that exist or not), and ids that exist as
 * well as any id the schema allows.
 */
const OVERRIDES = {
  'query.cursor': () => fc.integer({ min: 1, max: 5000 }).map(encodeCursor),
  'path.petId': (fromSchema: fc.Arbitrary<unknown>) => fc.oneof(fromSchema, fc.integer({ min: 1, max: 2000 })),
};

/**
 * Generated requests against a running test server: issues the keys (valid, revoked, other
 * environment, never issued), seeds a few animals, and checks every exchange against the
 * contract (oracle.ts) and the store model (store-model.ts).
 */
export async function propertyHarness(server: TestServer, doc: OpenApiDocument) {
  const checker = new ContractChecker(doc);
  const model = new StoreModel(doc);
  const now = new Date(server.clock.now());
  const revoked = await issueKey(server.store, { name: 'revoked', plan: 'enterprise', environment: 'production', ...UNLIMITED }, now);
  await server.store.revokeKey(revoked.record.id, now);
  const keys: RunKeys = {
    valid: await server.newKey('enterprise', UNLIMITED),
    revoked: revoked.key,
    otherEnvironment: await server.newKey('pro', undefined, 'staging'),
    unknown: generateKey('production').key,
  };
  for (let i = 1; i <= SEEDED_ANIMALS; i++) {
    const status = (['available', 'pending', 'sold'] as const)[i % 3];
    const { data } = await server.client(keys.valid).POST('/pets', { body: { name: `Seed ${i}`, categoryId: i, status } });
    model.pets.set(data!.id, data!);
  }

  /** Sends one request (valid ones through the typed client); throws with what is wrong and the curl that replays it. */
  async function exchange(generated: GeneratedRequest): Promise<void> {
    const request = asDescribed(generated);
    const wire = toWire(request, server.baseUrl, keys);
    const observed: ObservedResponse = request.typed ? await sendTyped(server.client(), request, keys) : await sendRaw(wire);
    const violations = [...contractViolations(checker, request, observed), ...model.check(request, observed)];
    if (violations.length > 0) {
      const headers = [...observed.headers].map(([name, value]) => `  ${name}: ${value}`).join('\n');
      throw new Error(
        `${violations.map((v) => `- ${v}`).join('\n')}\n\nreplay:\n  ${toCurl(wire)}\n\nresponse:\n  ${observed.status}\n${headers}\n\n  ${observed.text.slice(0, 2000)}`,
      );
    }
  }

  return {
    keys,
    model,
    arbitraries: requestArbitraries(doc, OVERRIDES),
    /**
     * Sends `runs` requests drawn from `arbitrary`; on a failure fast-check shrinks it and
     * reports the smallest request (as curl and JSON) with its seed and path, which
     * PROPERTY_SEED and PROPERTY_PATH replay.
     */
    async check(arbitrary: fc.Arbitrary<GeneratedRequest>, runs: number): Promise<void> {
      const seed = process.env.PROPERTY_SEED === undefined ? undefined : Number(process.env.PROPERTY_SEED);
      await fc.assert(
        fc.asyncProperty(
          arbitrary.map((r) => printable(r, server.baseUrl, keys)),
          exchange,
        ),
        {
          numRuns: runs,
          seed,
          path: process.env.PROPERTY_PATH,
          // The violations and the curl that replays them, in the message itself (JSON reports too).
          includeErrorInReport: true,
        },
      );
    },
  };
}

export type PropertyHarness = Awaited<ReturnType<typeof propertyHarness>>;
