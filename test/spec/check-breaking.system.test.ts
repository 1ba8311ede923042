import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { compareContracts, majorOf } from 'contract-kit/breaking';
import { RepositoryCopy, type Outcome } from '../designer/repository-copy.js';
import { ROOT } from '../support/run.js';

// A parsed YAML document, changed freely by each mutation.
type Spec = Record<string, any>;

const ORIGINAL = readFileSync(join(ROOT, 'openapi.yaml'), 'utf8');
const workDir = mkdtempSync(join(tmpdir(), 'animal-store-breaking-'));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

let files = 0;
/** Writes a copy of the contract changed by `mutate` and returns its path. */
function mutated(mutate: (spec: Spec) => void): string {
  const spec = parse(ORIGINAL) as Spec;
  mutate(spec);
  const path = join(workDir, `revision-${++files}.yaml`);
  writeFileSync(path, stringify(spec));
  return path;
}

const basePath = join(workDir, 'base.yaml');
writeFileSync(basePath, ORIGINAL);

// The contract's version as it stands, and the next major's, as the reports write them.
const VERSION = (parse(ORIGINAL) as Spec).info.version as string;
const MAJOR = majorOf(VERSION, 'openapi.yaml');
const NEXT = `${MAJOR + 1}.0.0`;

const raiseMajor = (s: Spec) => {
  s.info.version = NEXT;
};

// What the additive edits below add: names no designer would give, so that a contract that
// already has a field, parameter or operation of its own never meets them.
const ADDED_FIELD = 'probeAddedField';
const ADDED_PATH = '/probe-added-operation';
const ADDED_OPERATION = 'probeAddedOperation';
/** An operation on a path of its own (Redocly reports the path added): a copy of GET /pets (listPets), which has no path parameter. */
const addOperation = (s: Spec) => {
  s.paths[ADDED_PATH] = { get: { ...structuredClone(s.paths['/pets'].get), operationId: ADDED_OPERATION } };
};

// Each kind of breaking change, made to an otherwise unchanged contract.
const breakingKinds: [string, RegExp, (spec: Spec) => void][] = [
  [
    'an operation removed',
    /operation-removed/,
    (s) => {
      delete s.paths['/pets/{petId}'].get;
    },
  ],
  [
    'a response field removed',
    /property-removed/,
    (s) => {
      delete s.components.schemas.Pet.properties.status;
      s.components.schemas.Pet.required = s.components.schemas.Pet.required.filter((p: string) => p !== 'status');
    },
  ],
  [
    'a range narrowed (limit maximum 100 → 50)',
    /Upper bound changed from '<= 100' to '<= 50'/,
    (s) => {
      s.components.parameters.Limit.schema.maximum = 50;
    },
  ],
  [
    'an enum value removed',
    /enum-values-removed/,
    (s) => {
      s.components.schemas.PetStatus.enum = ['available', 'pending'];
    },
  ],
  [
    'a required query parameter added',
    /parameter-became-required/,
    (s) => {
      s.paths['/pets'].get.parameters.push({ name: 'owner', in: 'query', required: true, schema: { type: 'string' } });
    },
  ],
  [
    'a body field made required',
    /required-properties-added/,
    (s) => {
      s.components.schemas.NewPet.required.push('status');
    },
  ],
  [
    'a status code removed',
    /response-removed/,
    (s) => {
      delete s.paths['/pets/{petId}'].get.responses['404'];
    },
  ],
  [
    'a type changed (categoryId integer → string)',
    /schema-type-changed/,
    (s) => {
      s.components.schemas.CategoryId = { type: 'string', description: 'Now a slug.' };
    },
  ],
];

describe('compareContracts (Redocly diff with the contract’s rules)', () => {
  it.concurrent.each(breakingKinds)('catches %s, and fails while the major stays 1', async (_name, expected, mutate) => {
    const revision = mutated(mutate);
    const result = await compareContracts(basePath, revision);
    expect(result.breaking.length).toBeGreaterThan(0);
    expect(result.breaking.map((c) => `${c.ruleId} ${c.message}`).join('\n')).toMatch(expected);
    expect(result.passes).toBe(false);
  });

  it.concurrent('names every operation that returns a changed schema, not only the first one Redocly walked', async () => {
    const result = await compareContracts(
      basePath,
      mutated((s) => {
        delete s.components.schemas.Pet.properties.status;
        s.components.schemas.Pet.required = s.components.schemas.Pet.required.filter((p: string) => p !== 'status');
      }),
    );
    const removed = result.breaking.filter((c) => c.ruleId === 'property-removed');
    expect(removed).toHaveLength(1);
    // Every operation of the contract whose responses hold a Pet, by $ref (GET /pets in an array, GET /pets/feed in its events' data).
    expect(new Set(removed[0]!.operations)).toEqual(new Set(['GET /pets', 'POST /pets', 'GET /pets/feed', 'GET /pets/{petId}']));
    expect(removed[0]!.operations[0]).toBe(removed[0]!.where);
  });

  it.concurrent('lets the same breaking changes through once info.version’s major is raised', async () => {
    const result = await compareContracts(
      basePath,
      mutated((s) => {
        for (const [, , mutate] of [...breakingKinds].reverse()) mutate(s);
        raiseMajor(s);
      }),
    );
    expect(new Set(result.breaking.map((c) => c.ruleId)).size).toBeGreaterThanOrEqual(7);
    expect(result).toMatchObject({ baseVersion: VERSION, revisionVersion: NEXT, majorRaised: true, passes: true });
  });

  it.concurrent(
    'passes additive changes: an optional parameter, a new response field, a new operation, a wider range, a new error code',
    async () => {
      const revision = mutated((s) => {
        s.paths['/pets'].get.parameters.push({
          name: 'probeQuery',
          in: 'query',
          required: false,
          schema: { type: 'string', maxLength: 50 },
        });
        s.components.schemas.Pet.properties[ADDED_FIELD] = { type: 'string', maxLength: 30 };
        addOperation(s);
        s.components.parameters.Limit.schema.maximum = 200;
        s.components.schemas.ErrorCode.enum.push('probe_added_code');
      });
      const result = await compareContracts(basePath, revision);
      expect(result.breaking).toEqual([]);
      expect(result.compatible.minor).toBeGreaterThanOrEqual(3);
      expect(result.allowed.map((c) => c.message)).toEqual([expect.stringContaining('probe_added_code')]);
      expect(result.changes).toHaveLength(result.allowed.length + result.compatible.minor + result.compatible.patch);
      expect(result.changes).toContainEqual(
        expect.objectContaining({ class: 'allowed-by-contract', ruleId: 'enum-values-added', file: revision }),
      );
      expect(result.changes).toContainEqual(
        expect.objectContaining({ class: 'minor', where: ADDED_PATH, message: 'PathItem added', ruleId: null }),
      );
      expect(result.passes).toBe(true);
    },
  );

  it.concurrent('reads a report larger than a pipe chunk (about 64 KiB) intact', async () => {
    const result = await compareContracts(
      basePath,
      mutated((s) => {
        for (let i = 1; i <= 20; i++) {
          const copy = structuredClone(s.paths['/pets']);
          for (const op of Object.values<{ operationId?: string }>(copy)) if (op.operationId) op.operationId += `Copy${i}`;
          s.paths[`/pets-copy-${i}`] = copy;
        }
      }),
    );
    expect(result.breaking).toEqual([]);
    expect(result.compatible.minor).toBeGreaterThanOrEqual(20);
  });

  it.concurrent('still counts a new value of a non-error enum as breaking (clients may switch on it)', async () => {
    const result = await compareContracts(
      basePath,
      mutated((s) => s.components.schemas.PetStatus.enum.push('adopted')),
    );
    expect(result.breaking.map((c) => c.ruleId)).toEqual(['enum-values-added']);
    expect(result.passes).toBe(false);
  });

  it('names the file and line of a malformed document instead of diffing it', async () => {
    const broken = join(workDir, 'broken.yaml');
    writeFileSync(broken, 'openapi: 3.1.0\npaths: [\n');
    await expect(compareContracts(basePath, broken)).rejects.toThrow(/broken\.yaml: is not valid YAML or JSON.*line 3/s);
    await expect(compareContracts(basePath, join(workDir, 'missing.yaml'))).rejects.toThrow(/missing\.yaml: cannot be read/);
  });

  it('reads the major of a version written as a tag (v2), and none from one that is not a number', async () => {
    const versioned = async (version: string) =>
      (
        await compareContracts(
          basePath,
          mutated((s) => (s.info.version = version)),
        )
      ).majorRaised;
    // The next major, written as a tag (v2 after 1.0.0) and without its patch (2.0).
    expect(await versioned(`v${MAJOR + 1}`)).toBe(true);
    expect(await versioned(`${MAJOR + 1}.0`)).toBe(true);
    expect(await versioned('2025-01-01')).toBe(false);
  });
});

// How check:breaking reads git revisions, records a release and checks a served earlier major is
// contract-kit's (packages/contract-kit/test/check-breaking.system.test.ts); here, the Animal
// Store's contract and its gate.
describe('npm run check: the gate against the last released contract', () => {
  const show = (outcome: Outcome) => `exit ${outcome.code}\n--- stdout\n${outcome.stdout}\n--- stderr\n${outcome.stderr}`;
  const FIELD = 'probeReleasedField';
  const PETS = [
    ['components', 'schemas', 'NewPet', 'properties', FIELD],
    ['components', 'schemas', 'Pet', 'properties', FIELD],
  ];
  let copy: RepositoryCopy | undefined;
  afterAll(() => copy?.remove());

  it('fails on a committed removal of a released field, on a clone whose HEAD is the commit under test (as CI’s)', async () => {
    copy = await RepositoryCopy.create();
    const generate = async () => {
      const generated = await copy!.npm('generate');
      expect(generated.code, show(generated)).toBe(0);
    };
    copy.editContract((contract) => {
      for (const path of PETS) contract.setIn(path, { type: 'string', maxLength: 30, description: 'Released in a minor version.' });
    });
    await generate();
    // The release: the contract as released, kept where every clone has it (check:breaking --record writes the same).
    copy.write(`contracts/released/${MAJOR}.x.yaml`, readFileSync(join(copy.dir, 'openapi.yaml'), 'utf8'));
    await copy.commit('release the probe field');

    copy.editContract((contract) => {
      for (const path of PETS) contract.deleteIn(path);
    });
    await generate();
    await copy.commit('remove the probe field');
    // A later edit of the contract: the version before the last commit that changed it lacks the field too.
    copy.editContract((contract) => contract.setIn(['paths', '/pets', 'get', 'description'], 'Returns the animals in the store.'));
    await generate();
    await copy.commit('reword listPets');

    const checked = await copy.npm('check');
    expect(checked.code, show(checked)).toBe(1);
    expect(checked.stdout.match(/^FAILED .*$/gm), show(checked)).toEqual([expect.stringMatching(/^FAILED check:breaking /)]);
    expect(checked.stdout).toContain(`with the last released contract, contracts/released/${MAJOR}.x.yaml`);
    expect(checked.stdout).toMatch(new RegExp(`Property \`${FIELD}\` of \`Pet\` was removed`));
    expect(checked.stdout).toContain(`breaking change(s) without a new major version (info.version ${VERSION} → ${VERSION})`);
  }, 600_000);
});
