import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSpec, type OpenApiDocument } from '../../src/contract/load-spec.js';
import { ContractChecker } from '../contract/conformance.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { requestArbitraries } from './arbitraries-from-spec.js';
import { propertyHarness, UNLIMITED } from './harness.js';

/** Issue 16's example: labels, each at most once, at most ten. */
const TAGS = { type: 'array', items: { type: 'string', minLength: 1, maxLength: 30 }, uniqueItems: true, maxItems: 10 };

/** A copy of the contract with new fields (sent and returned) and a new query parameter, as a designer would add them. */
function contractWithNewFields(): OpenApiDocument {
  const doc = structuredClone(loadSpec());
  const schemas = doc.components!.schemas as Record<string, { properties: Record<string, unknown> }>;
  schemas.NewPet!.properties.nickname = { type: 'string', minLength: 2, maxLength: 5, pattern: '^[a-z]+$' };
  schemas.Pet!.properties.nickname = schemas.NewPet!.properties.nickname;
  schemas.NewPet!.properties.tags = structuredClone(TAGS);
  schemas.Pet!.properties.tags = structuredClone(TAGS);
  const listPets = doc.paths['/pets']!.get as { parameters: unknown[] };
  listPets.parameters.push({ name: 'colour', in: 'query', required: false, schema: { type: 'string', enum: ['red', 'blue'] } });
  return doc;
}

const NEW_PET = { $ref: '#/components/schemas/NewPet' };

describe('arbitraries from the contract', () => {
  it('generate valid bodies that the schema accepts and invalid ones it refuses, by ajv', () => {
    const doc = loadSpec();
    const checker = new ContractChecker(doc);
    const createPet = requestArbitraries(doc).get('createPet')!;
    for (const request of fc.sample(createPet.valid, { numRuns: 300, seed: 7 })) {
      expect(checker.validate(NEW_PET, JSON.parse(request.body!.text)), request.body!.text).toEqual([]);
    }
    const bodyMutations = fc.sample(createPet.invalid, { numRuns: 600, seed: 7 }).filter((r) => r.mutation!.field.startsWith('body.'));
    expect(bodyMutations.length).toBeGreaterThan(100);
    for (const request of bodyMutations) {
      // Numbers past 2^53 are not JSON.parse-able exactly; the rest must fail the schema.
      if (/\d{16}/.test(request.body!.text)) continue;
      expect(checker.validate(NEW_PET, JSON.parse(request.body!.text)), `${request.mutation!.kind} ${request.body!.text}`).not.toEqual([]);
    }
  });

  it('cover a field added to the contract without a test naming it', () => {
    const arbitraries = requestArbitraries(contractWithNewFields());
    const createPet = arbitraries.get('createPet')!;
    expect(createPet.mutationLabels).toEqual(
      expect.arrayContaining([
        'body.nickname wrong-type',
        'body.nickname too-short',
        'body.nickname too-long',
        'body.nickname bad-pattern',
      ]),
    );
    expect(createPet.mutationLabels).toEqual(
      expect.arrayContaining([
        'body.tags wrong-type',
        'body.tags too-many-items',
        'body.tags duplicate-items',
        'body.tags.0 too-short',
        'body.tags.0 too-long',
      ]),
    );
    expect(arbitraries.get('listPets')!.mutationLabels).toEqual(expect.arrayContaining(['query.colour bad-enum', 'query.colour repeated']));
    const nicknames = fc
      .sample(createPet.valid, { numRuns: 200, seed: 3 })
      .map((r) => (JSON.parse(r.body!.text) as { nickname?: string }).nickname);
    expect(nicknames.some((n) => n !== undefined)).toBe(true);
    expect(nicknames.filter((n) => n !== undefined).every((n) => /^[a-z]{2,5}$/.test(n))).toBe(true);
    const colours = fc
      .sample(arbitraries.get('listPets')!.valid, { numRuns: 200, seed: 3 })
      .flatMap((r) => r.query.filter(([name]) => name === 'colour'));
    expect(colours.length).toBeGreaterThan(0);
  });

  // Issue 16: uniqueItems crashed the generator ("schema keyword "uniqueItems" is not supported").
  it('generate the tags of issue 16: bodies ajv accepts, and every way of breaking tags refused by ajv', () => {
    const doc = contractWithNewFields();
    const checker = new ContractChecker(doc);
    const createPet = requestArbitraries(doc).get('createPet')!;
    const bodies = fc.sample(createPet.valid, { numRuns: 300, seed: 16 }).map((r) => JSON.parse(r.body!.text) as { tags?: string[] });
    for (const body of bodies) expect(checker.validate(NEW_PET, body), JSON.stringify(body)).toEqual([]);
    expect(bodies.some((b) => (b.tags?.length ?? 0) > 1)).toBe(true);
    const broken = fc.sample(createPet.invalid, { numRuns: 3000, seed: 16 }).filter((r) => r.mutation!.field.startsWith('body.tags'));
    expect(new Set(broken.map((r) => r.mutation!.kind))).toEqual(
      new Set(['wrong-type', 'too-many-items', 'duplicate-items', 'too-short', 'too-long']),
    );
    for (const request of broken) {
      expect(checker.validate(NEW_PET, JSON.parse(request.body!.text)), `${request.mutation!.kind} ${request.body!.text}`).not.toEqual([]);
    }
  });

  it('refuse, loudly, a schema keyword they do not understand', () => {
    const doc = contractWithNewFields();
    (doc.components!.schemas as Record<string, Record<string, unknown>>).PetName!.contains = { type: 'string' };
    expect(() => fc.sample(requestArbitraries(doc).get('createPet')!.valid, 1)).toThrow(/keyword "contains" is not supported/);
  });
});

describe('a server on a contract with new fields', () => {
  const doc = contractWithNewFields();
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ anonymousLimits: UNLIMITED, spec: doc });
  });
  afterAll(() => server?.close());

  it('is held to the new fields by the same properties, with no test written for them', async () => {
    const harness = await propertyHarness(server, doc);
    const { valid, invalid } = harness.arbitraries.get('createPet')!;
    const nicknameMutations = invalid.filter((r) => r.mutation!.field === 'body.nickname');
    await harness.check(valid, 150);
    await harness.check(nicknameMutations, 150);
    await harness.check(
      invalid.filter((r) => r.mutation!.field.startsWith('body.tags')),
      150,
    );
    await harness.check(
      harness.arbitraries.get('listPets')!.invalid.filter((r) => r.mutation!.field === 'query.colour'),
      100,
    );
  }, 60_000);
});
