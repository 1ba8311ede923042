import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSpec, type OpenApiDocument } from '../../src/contract/load-spec.js';
import { ContractChecker } from '../contract/conformance.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { requestArbitraries, type GeneratedRequest, type OperationArbitraries } from './arbitraries-from-spec.js';
import { propertyHarness, UNLIMITED } from './harness.js';

/** Labels, each at most once, at most ten. */
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

function generated(arbitraries: OperationArbitraries | undefined) {
  if (!arbitraries || arbitraries.unsupported !== undefined) throw new Error(arbitraries?.unsupported ?? 'no such operation');
  return arbitraries;
}

/** `field keyword` for each generated invalid request: what was broken (any item `*`), and what Ajv refused it for. */
const labels = (requests: GeneratedRequest[]) =>
  new Set(requests.flatMap((r) => r.mutation!.kind.split('+').map((k) => `${r.mutation!.field.replace(/\.\d+(?=\.|$)/g, '.*')} ${k}`)));

describe('arbitraries from the contract', () => {
  it('generate valid bodies that the schema accepts and invalid ones it refuses, by ajv', () => {
    const doc = loadSpec();
    const checker = new ContractChecker(doc);
    const createPet = generated(requestArbitraries(doc).get('createPet'));
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
    const createPet = generated(arbitraries.get('createPet'));
    const listPets = generated(arbitraries.get('listPets'));
    const broken = labels(fc.sample(createPet.invalid, { numRuns: 3000, seed: 3 }));
    expect([...broken]).toEqual(
      expect.arrayContaining([
        'body.nickname type',
        'body.nickname minLength',
        'body.nickname maxLength',
        'body.nickname pattern',
        'body.tags type',
        'body.tags maxItems',
        'body.tags uniqueItems',
        'body.tags.* minLength',
        'body.tags.* maxLength',
      ]),
    );
    expect([...labels(fc.sample(listPets.invalid, { numRuns: 1000, seed: 3 }))]).toEqual(expect.arrayContaining(['query.colour enum']));
    const bodies = fc
      .sample(createPet.valid, { numRuns: 300, seed: 3 })
      .map((r) => JSON.parse(r.body!.text) as { nickname?: string; tags?: string[] });
    const nicknames = bodies.flatMap((b) => (b.nickname === undefined ? [] : [b.nickname]));
    expect(nicknames.length).toBeGreaterThan(0);
    expect(nicknames.every((n) => /^[a-z]{2,5}$/.test(n))).toBe(true);
    expect(bodies.some((b) => (b.tags?.length ?? 0) > 1)).toBe(true);
    const colours = fc.sample(listPets.valid, { numRuns: 200, seed: 3 }).flatMap((r) => r.query.filter(([name]) => name === 'colour'));
    expect(colours.length).toBeGreaterThan(0);
  });

  it('generate schemas with any keyword, and skip with a note an operation whose schema they make no value for', () => {
    const doc = contractWithNewFields();
    const schemas = doc.components!.schemas as Record<string, { properties: Record<string, unknown> }>;
    schemas.NewPet!.properties.tags = { ...TAGS, contains: { const: 'new' }, minItems: 1 };
    const checker = new ContractChecker(doc);
    const createPet = generated(requestArbitraries(doc).get('createPet'));
    for (const request of fc.sample(createPet.valid, { numRuns: 100, seed: 11 })) {
      expect(checker.validate(NEW_PET, JSON.parse(request.body!.text)), request.body!.text).toEqual([]);
    }
    expect([...labels(fc.sample(createPet.invalid, { numRuns: 3000, seed: 11 }))]).toContain('body.tags contains');

    // json-schema-faker names additional properties itself (prop1234), which this one refuses.
    schemas.NewPet!.properties.labels = { type: 'object', propertyNames: { pattern: '^[a-z]+$' }, minProperties: 2 };
    (schemas.NewPet as { required?: string[] }).required!.push('labels');
    const arbitraries = requestArbitraries(doc);
    expect(arbitraries.get('createPet')!.unsupported).toMatch(/^createPet is not generated: json-schema-faker made no value/);
    expect(arbitraries.get('listPets')!.unsupported).toBeUndefined();
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
    const createPet = generated(harness.arbitraries.get('createPet'));
    const listPets = generated(harness.arbitraries.get('listPets'));
    await harness.check(createPet.valid, 150);
    await harness.check(
      createPet.invalid.filter((r) => r.mutation!.field === 'body.nickname'),
      150,
    );
    await harness.check(
      createPet.invalid.filter((r) => r.mutation!.field.startsWith('body.tags')),
      150,
    );
    await harness.check(
      listPets.invalid.filter((r) => r.mutation!.field === 'query.colour'),
      100,
    );
  }, 60_000);
});
