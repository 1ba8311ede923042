import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { isSeq, parse, parseDocument, type YAMLMap } from 'yaml';
import { RESPONSE_HEADERS } from '../support/added-operation.js';
import { codeBlocks, guideSection } from '../support/guide.js';
import { ROOT } from '../support/run.js';
import { RepositoryCopy, type Outcome } from './repository-copy.js';

/**
 * The API designer's loop, run as a designer would on a clone: edit openapi.yaml, `npm run
 * generate`, `npm run check`, `npm run check:breaking`, the tests. Four scripted edits on a
 * throw-away copy of this repository, each with the outcome docs/designers.md promises:
 * (a) an optional field added: everything green and the field round-trips; (b) a required field
 * no store keeps: the gate names it; (c) an operation that writes added: only its stub's signal,
 * then green once its handler, one store method and its test are written, on both stores; (d) a
 * released field removed: check:breaking (and so npm run check) fails until the major is raised, and
 * the guide's "A new major version", followed from its own text, serves /v1 beside /v2 and ends with
 * the Animal Store's tests of `npm test` green. Slow (about 13 minutes on two cores): `npm run test:designer`, and `.ci/run` runs it.
 */
let copy: RepositoryCopy;
const MINUTES = 60_000;
/** The Animal Store's tests in the copy: about 6 minutes on two cores, more than six times that leaves a loaded machine room. */
const SUITE_MINUTES = 45;

beforeAll(async () => {
  copy = await RepositoryCopy.create();
}, 5 * MINUTES);
afterEach(() => copy?.restore());
afterAll(() => copy?.remove());

const show = (outcome: Outcome) =>
  `exit ${outcome.code}\n--- stdout\n${outcome.stdout.slice(-6000)}\n--- stderr\n${outcome.stderr.slice(-6000)}`;
const succeeds = (outcome: Outcome) => expect(outcome.code, show(outcome)).toBe(0);

/** Failed tests of a vitest run in the copy, with their messages, from its JSON report. */
async function vitest(
  files: string[],
  env: NodeJS.ProcessEnv = {},
  timeoutMs?: number,
): Promise<{ outcome: Outcome; failures: { name: string; messages: string[] }[] }> {
  // Under test-results/, which Prettier and git leave alone: `npm run check` in the copy runs after it.
  const report = 'test-results/designer-results.json';
  const outcome = await copy.sh(
    'npx',
    ['vitest', 'run', ...files, '--reporter=json', `--outputFile=${report}`],
    { PROPERTY_RUNS: '100', ...env },
    timeoutMs,
  );
  const results = JSON.parse(readFileSync(join(copy.dir, report), 'utf8')) as {
    testResults: { name: string; message?: string; assertionResults: { fullName: string; status: string; failureMessages: string[] }[] }[];
  };
  const failures = results.testResults.flatMap((file) => [
    ...file.assertionResults.filter((t) => t.status === 'failed').map((t) => ({ name: t.fullName, messages: t.failureMessages })),
    ...(file.assertionResults.length === 0 && file.message ? [{ name: file.name, messages: [file.message] }] : []),
  ]);
  return { outcome, failures };
}

/** The Animal Store's test files of npm test in the copy (test/, but for this loop), as vitest's filters. */
const serviceTests = () =>
  readdirSync(join(copy.dir, 'test'), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.test.ts') && !file.startsWith('designer/'))
    .map((file) => `test/${file}`);

const TAGS = {
  description: 'Words the store uses to describe the animal.',
  type: 'array',
  maxItems: 10,
  uniqueItems: true,
  items: { type: 'string', minLength: 1, maxLength: 30 },
};

describe('the designer loop on a copy of the repository', () => {
  it(
    '(a) an optional array field added to NewPet and Pet: generate, check, check:breaking and the tests pass, and the field round-trips on both stores, the mock and the client types',
    async () => {
      copy.editContract((contract) => {
        contract.setIn(['components', 'schemas', 'NewPet', 'properties', 'tags'], TAGS);
        contract.setIn(['components', 'schemas', 'Pet', 'properties', 'tags'], TAGS);
      });
      succeeds(await copy.npm('generate'));
      copy.write('test/tags-round-trip.test.ts', readFileSync(join(ROOT, 'test/designer/scenarios/tags-round-trip.test.ts'), 'utf8'));
      succeeds(await copy.npm('check'));
      const breaking = await copy.npm('check:breaking');
      succeeds(breaking);
      expect(breaking.stdout).toMatch(/No breaking change/);
      const { outcome, failures } = await vitest([
        'test/tags-round-trip.test.ts',
        'test/property',
        'test/store',
        'test/mock',
        'test/codegen',
        'test/contract/server.contract.test.ts',
      ]);
      expect(failures, show(outcome)).toEqual([]);
      succeeds(outcome);
    },
    20 * MINUTES,
  );

  it(
    "(d) a released field removed: check:breaking fails and names it until info.version's major is raised; the guide's new major version then ends with npm test green, /v1 served beside /v2, each passing the contract suite against its own contract",
    async () => {
      const addTags = () =>
        copy.editContract((contract) => {
          contract.setIn(['components', 'schemas', 'NewPet', 'properties', 'tags'], TAGS);
          contract.setIn(['components', 'schemas', 'Pet', 'properties', 'tags'], TAGS);
        });
      addTags();
      // The release: the contract recorded as released (contracts/released/1.x.yaml), committed.
      const recorded = await copy.npm('check:breaking', '--record');
      succeeds(recorded);
      expect(recorded.stdout).toMatch(/Recorded openapi\.yaml .* contracts\/released\/1\.x\.yaml/);
      await copy.commit('release tags');
      copy.editContract((contract) => {
        contract.deleteIn(['components', 'schemas', 'NewPet', 'properties', 'tags']);
        contract.deleteIn(['components', 'schemas', 'Pet', 'properties', 'tags']);
      });
      const refused = await copy.npm('check:breaking');
      expect(refused.code, show(refused)).toBe(1);
      expect(refused.stdout).toMatch(/with the last released contract, contracts\/released\/1\.x\.yaml/);
      expect(refused.stdout).toMatch(/tags/);
      expect(refused.stdout).toMatch(/breaking change\(s\) without a new major version/);
      copy.editContract((contract) => contract.setIn(['info', 'version'], '2.0.0'));
      const released = await copy.npm('check:breaking');
      succeeds(released);
      expect(released.stdout).toMatch(/released as a new major version/);

      // The rest of the guide's "A new major version", its commands read from its text: the new
      // major's path wherever openapi.yaml writes the old one's (servers, examples, description).
      const guide = guideSection('A new major version');
      copy.edit('openapi.yaml', (text) => text.replace(/\/v1\b/g, '/v2'));
      const [commands, sunset] = [codeBlocks(guide, 'sh')[0]!, codeBlocks(guide, 'yaml')[0]!];
      expect(commands).toContain('npm run check');
      for (const command of commands.split('\n').filter(Boolean)) {
        const [program, ...args] = command.split(/\s+/);
        succeeds(await copy.sh(program!, args));
      }
      copy.edit('contracts/released/1.x.yaml', (text) => {
        const released = parseDocument(text);
        for (const [key, value] of Object.entries(parse(sunset) as Record<string, unknown>)) released.setIn(['info', key], value);
        return released.toString({ lineWidth: 0 });
      });
      succeeds(await copy.npm('check'));
      const lines = await copy.npm('check:breaking');
      succeeds(lines);
      expect(lines.stdout).toMatch(
        /Comparing contracts\/released\/1\.x\.yaml \(the 1\.x line, still served\) with its last committed version/,
      );

      // The Animal Store's tests of npm test (test/, both projects) on the new major with the old
      // one served beside it: every test takes the version, its path and the page size from the
      // contract. contract-kit's own tests read their own fixtures, never openapi.yaml: the edit
      // changes nothing for them. The browser tests run as they do outside the copy (CI as the caller has it).
      const files = serviceTests();
      const { outcome, failures } = await vitest(files, { CI: process.env.CI ?? '' }, SUITE_MINUTES * MINUTES);
      expect(failures, show(outcome)).toEqual([]);
      succeeds(outcome);
      // Among them, both versions served side by side, each passing the contract suite against its own contract.
      const suites = JSON.parse(readFileSync(join(copy.dir, 'test-results/designer-results.json'), 'utf8')) as {
        testResults: { name: string; assertionResults: { fullName: string; status: string }[] }[];
      };
      expect(suites.testResults.length).toBe(files.length);
      expect(suites.testResults.filter((file) => file.name.includes('packages/'))).toEqual([]);
      const passed = suites.testResults.flatMap((file) => file.assertionResults).filter((test) => test.status === 'passed');
      expect(passed.filter((test) => test.fullName.includes("the real server's contracts/released/1.x.yaml")).length).toBeGreaterThan(20);
      expect(passed.filter((test) => test.fullName.includes('the real server (in-process')).length).toBeGreaterThan(20);

      // An edit of the released 1.x that breaks its clients fails check:breaking, major or not.
      copy.edit('contracts/released/1.x.yaml', (text) => text.replace('maximum: 100', 'maximum: 50'));
      const narrowed = await copy.npm('check:breaking');
      expect(narrowed.code, show(narrowed)).toBe(1);
      expect(narrowed.stdout).toMatch(/breaking change\(s\) without a new major version/);
    },
    (SUITE_MINUTES + 20) * MINUTES,
  );

  it(
    '(b) a required Pet field that no store keeps: generate and check fail and name each step; the guide, followed from its own text, ends in a green npm run check, and the field is kept and defaulted on both stores',
    async () => {
      const guide = guideSection('A field every animal must have');
      const [field, migration, columns, commands] = [
        codeBlocks(guide, 'yaml')[0]!,
        codeBlocks(guide, 'ts')[0]!,
        codeBlocks(guide, 'ts')[1]!,
        codeBlocks(guide, 'sh')[0]!,
      ];
      const [[name, schema]] = Object.entries(parse(field) as Record<string, unknown>) as [[string, unknown]];
      copy.editContract((contract) => {
        contract.setIn(['components', 'schemas', 'Pet', 'properties', name], schema);
        contract.setIn(['components', 'schemas', 'NewPet', 'properties', name], schema);
        contract.addIn(['components', 'schemas', 'Pet', 'required'], name);
      });
      const generated = await copy.npm('generate');
      expect(generated.code, show(generated)).toBe(1);
      expect(generated.stderr).toMatch(new RegExp(`Pet\\.${name} is required in every animal returned, but no store keeps it`));
      expect(generated.stderr).toContain(`"add pets.${name}" appended to MIGRATIONS in src/service/store/migrations.ts`);
      expect(generated.stderr).toContain(`${name}: '${name}' in PET_COLUMNS in src/service/store/pet-record.ts`);
      const checked = await copy.npm('check');
      expect(checked.code, show(checked)).not.toBe(0);
      expect(checked.stdout + checked.stderr).toMatch(new RegExp(name));

      // The guide's steps, as written.
      copy.edit('src/service/store/migrations.ts', (text) => text.replace(/\n\];\n?$/, `\n${migration.replace(/^/gm, '  ')}\n];\n`));
      copy.edit('src/service/store/pet-record.ts', (text) => text.replace(/^export const PET_COLUMNS = .*$/m, columns));
      const examples = [...generated.stderr.matchAll(/#\/components\/examples\/(\w+)\/value/g)].map(([, example]) => example!);
      expect(examples.length, generated.stderr).toBeGreaterThan(0);
      copy.editContract((contract) => {
        for (const example of examples) {
          const at = ['components', 'examples', example, 'value'];
          const value = contract.getIn(at);
          for (const animal of isSeq(value) ? value.items : [value]) (animal as YAMLMap).set(name, 'unknown');
        }
      });
      for (const command of commands.split('\n').filter(Boolean)) {
        const [program, ...args] = command.split(/\s+/);
        succeeds(await copy.sh(program!, args));
      }

      // Kept and defaulted on both stores, and every test that is about the store, the server or the contract passes.
      copy.write('test/required-field.test.ts', REQUIRED_FIELD_TEST(name));
      const { outcome, failures } = await vitest([
        'test/required-field.test.ts',
        'test/store',
        'test/server',
        'test/property',
        'test/contract/server.contract.test.ts',
      ]);
      expect(failures, show(outcome)).toEqual([]);
      succeeds(outcome);
    },
    20 * MINUTES,
  );

  it(
    '(c) an operation that writes added: check stays green, only the stub\'s "not implemented" fails and names the file to write; green once its handler, one store method and its test are written, and the animal is gone on both stores',
    async () => {
      copy.editContract((contract) => {
        contract.setIn(['paths', '/pets/{petId}', 'delete'], DELETE_PET);
        contract.setIn(['components', 'responses', 'PetNotFound'], PET_NOT_FOUND);
      });
      succeeds(await copy.npm('generate'));
      succeeds(await copy.npm('check'));
      // The tests about every operation (and the property tests, which generate requests for each).
      const files = [
        'test/codegen',
        'test/server/errors.test.ts',
        'test/server/head.test.ts',
        'test/server/added-operation.test.ts',
        'test/server/authentication.test.ts',
        'test/mock',
        'test/property/contract.property.test.ts',
        'test/contract/server.contract.test.ts',
        'test/contract/mock.contract.system.test.ts',
      ];
      const before = await vitest(files);
      expect(before.failures.length, show(before.outcome)).toBeGreaterThan(0);
      for (const failure of before.failures) {
        expect(failure.messages.join('\n'), failure.name).toMatch(/deletePet is not implemented/);
        expect(failure.messages.join('\n'), failure.name).toContain('src/service/http/handlers/deletePet.ts');
      }
      // What the designer writes: the handler, one store method and its test in the store suite.
      copy.write('src/service/http/handlers/deletePet.ts', DELETE_PET_HANDLER);
      copy.edit('src/service/store/sql-store.ts', (text) => text.replace('  async insertKey(', `${DELETE_PET_METHOD}\n  async insertKey(`));
      copy.edit('test/store/store-suite.ts', (text) =>
        text.replace("    it(\n      'answers ping',", `${DELETE_PET_STORE_TEST}    it(\n      'answers ping',`),
      );
      expect(await copy.changedFiles()).toEqual(
        [
          'openapi.yaml',
          // written by npm run generate
          ...GENERATED,
          'src/service/http/handlers/deletePet.ts',
          'src/service/store/sql-store.ts',
          'test/store/store-suite.ts',
        ].sort(),
      );
      // The loop's own check, through the typed client on both stores.
      copy.write('test/delete-pet.test.ts', readFileSync(join(ROOT, 'test/designer/scenarios/delete-pet.test.ts'), 'utf8'));
      succeeds(await copy.npm('check'));
      const after = await vitest([...files, 'test/store', 'test/delete-pet.test.ts']);
      expect(after.failures, show(after.outcome)).toEqual([]);
      succeeds(after.outcome);
    },
    20 * MINUTES,
  );
});

/** A new operation as a designer writes it: a path parameter, no request body, a 204 without a body. */
const DELETE_PET = {
  operationId: 'deletePet',
  summary: 'Remove an animal',
  description: 'Removes an animal from the store.',
  tags: ['Pets'],
  parameters: [{ $ref: '#/components/parameters/PetId' }],
  responses: {
    '204': { description: 'The animal was removed.', headers: RESPONSE_HEADERS },
    '400': { $ref: '#/components/responses/BadRequest' },
    '401': { $ref: '#/components/responses/Unauthorized' },
    '404': { $ref: '#/components/responses/PetNotFound' },
    '429': { $ref: '#/components/responses/TooManyRequests' },
    '500': { $ref: '#/components/responses/InternalError' },
    '503': { $ref: '#/components/responses/ServiceUnavailable' },
  },
};

/** Its 404: getPet's carries getPet's deprecation headers, so a new operation gets its own. */
const PET_NOT_FOUND = {
  description: 'No animal has this identifier.',
  headers: RESPONSE_HEADERS,
  content: {
    'application/json': {
      schema: { $ref: '#/components/schemas/Error' },
      examples: { PetNotFoundExample: { $ref: '#/components/examples/PetNotFoundExample' } },
    },
  },
};

/**
 * What an added operation changes in npm run generate's output: every file of generated/ but the
 * client (client.ts, which changes only for operations that share a URL), and the client package's types.
 */
const GENERATED = [
  // Not the client, nor the stream reader beside it (contract-kit's own file): an operation without a stream changes neither.
  ...readdirSync(join(ROOT, 'generated'))
    .filter((file) => file !== 'client.ts' && file !== 'streams.ts')
    .map((file) => `generated/${file}`),
  'packages/client/src/generated/openapi.ts',
];

/** The handler the designer then writes: it deletes through the store. */
const DELETE_PET_HANDLER = `import { NotFoundError } from '../errors/not-found-error.js';
import type { Handler } from '../handler-types.js';

/** DELETE /pets/{petId}: 204 once the animal is removed, 404 when no animal has this id. */
export const deletePet: Handler<'deletePet'> = async ({ path }, { store }) => {
  if (!(await store.deletePet(path.petId))) throw new NotFoundError(\`Pet \${path.petId} not found.\`);
  return { status: 204 };
};
`;

/** The store method, written once for both engines (src/service/store/sql-store.ts): no cache to clear. */
const DELETE_PET_METHOD = `  /** Removes an animal; returns whether there was one. */
  async deletePet(id: number): Promise<boolean> {
    const result = await this.db.deleteFrom('pets').where('id', '=', id).executeTakeFirst();
    return result.numDeletedRows > 0n;
  }
`;

/** Its test in the store suite (test/store/store-suite.ts), which runs on SQLite and PostgreSQL. */
const DELETE_PET_STORE_TEST = `    it(
      'deletes an animal once: it is listed and found no more',
      withStore(async (store) => {
        const rex = await store.createPet({ name: 'Rex', categoryId: 1, status: 'available' });
        const tom = await store.createPet({ name: 'Tom', categoryId: 1, status: 'available' });
        expect(await store.listPets({ limit: 10 })).toEqual([rex, tom]);
        expect(await store.deletePet(rex.id)).toBe(true);
        expect(await store.deletePet(rex.id)).toBe(false);
        expect(await store.getPet(rex.id)).toBeUndefined();
        expect(await store.listPets({ limit: 10 })).toEqual([tom]);
      }),
    );

`;

/** What the guide promises of a required field with a column: an animal added without it gets the default, one with it keeps it. */
const REQUIRED_FIELD_TEST = (name: string) => `import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresEnabled } from './support/services.js';
import { startTestServer, type TestServer } from './support/test-server.js';

for (const engine of ['sqlite', 'postgres'] as const) {
  describe.skipIf(engine === 'postgres' && !postgresEnabled())(\`${name} on \${engine}\`, () => {
    let server: TestServer;
    beforeAll(async () => {
      server = await startTestServer({ engine });
    });
    afterAll(() => server?.close());

    it('returns the default for an animal added without it, and the value sent otherwise, from create, get and list', async () => {
      const client = server.client(await server.newKey());
      const plain = await client.POST('/pets', { body: { name: 'Plain', categoryId: 1 } });
      expect(plain.response.status).toBe(201);
      expect(plain.data).toMatchObject({ ${name}: 'unknown' });
      const given = await client.POST('/pets', { body: { name: 'Given', categoryId: 1, ${name}: 'female' } });
      expect(given.data).toMatchObject({ ${name}: 'female' });
      const got = await client.GET('/pets/{petId}', { params: { path: { petId: given.data!.id } } });
      expect(got.data).toMatchObject({ ${name}: 'female' });
      const listed = await client.GET('/pets', { params: { query: { limit: 100 } } });
      expect(listed.data!.map((pet) => pet.${name})).toEqual(['unknown', 'female']);
    });
  });
}
`;
