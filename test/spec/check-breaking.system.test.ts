import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { compareContracts } from 'contract-kit/breaking';
import { RepositoryCopy, type Outcome } from '../designer/repository-copy.js';
import { ROOT, run } from '../support/run.js';

// A parsed YAML document, changed freely by each mutation.
type Spec = Record<string, any>;

// The tsx loader by absolute address: the command runs inside a repository without node_modules.
const TSX = import.meta.resolve('tsx');
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

const raiseMajor = (s: Spec) => {
  s.info.version = '2.0.0';
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
    // Every operation of the contract whose responses hold a Pet, by $ref (GET /pets in an array).
    expect(new Set(removed[0]!.operations)).toEqual(new Set(['GET /pets', 'POST /pets', 'GET /pets/{petId}']));
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
    expect(result).toMatchObject({ baseVersion: '1.0.0', revisionVersion: '2.0.0', majorRaised: true, passes: true });
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

  it('reads the major of a version written v2, and none from one that is not a number', async () => {
    const versioned = async (version: string) =>
      (
        await compareContracts(
          basePath,
          mutated((s) => (s.info.version = version)),
        )
      ).majorRaised;
    expect(await versioned('v2')).toBe(true);
    expect(await versioned('2.0')).toBe(true);
    expect(await versioned('2025-01-01')).toBe(false);
  });
});

describe('npm run check:breaking (against git revisions, then a recorded release)', () => {
  const repo = join(workDir, 'repo');
  const spec = join(repo, 'openapi.yaml');
  const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8' });
  const check = (...args: string[]) =>
    run(process.execPath, ['--import', TSX, join(ROOT, 'scripts/check-breaking.ts'), '--spec', spec, ...args], { cwd: repo });
  const commit = (text: string, message: string) => {
    writeFileSync(spec, text);
    git('add', 'openapi.yaml');
    git('commit', '-q', '-m', message);
  };
  const narrowed = () => ORIGINAL.replace(/maximum: 100\n/, 'maximum: 50\n');
  /** The lines the text report lists under a heading that starts with `heading`, checked against the count it gives. */
  const listed = (stdout: string, heading: string) => {
    const [, count, rest] = new RegExp(`\\n${heading} \\((\\d+)\\):\\n([^]*)`).exec(stdout) ?? [];
    const lines = (rest ?? '').split('\n');
    const under = lines.slice(
      0,
      lines.findIndex((line) => !line.startsWith('  ')),
    );
    expect(under, stdout).toHaveLength(Number(count));
    return under;
  };

  it('explains when there is nothing to compare with, and exits 0', async () => {
    execFileSync('git', ['init', '-q', '-b', 'main', repo]);
    git('config', 'user.email', 'designer@example.test');
    git('config', 'user.name', 'Designer');
    commit(ORIGINAL, 'first contract');
    const result = await check();
    expect(result.stdout).toMatch(/first committed in .* "first contract"; there is no earlier version/);
    expect(result.code).toBe(0);
  });

  it('checks uncommitted edits against the last committed version, and exits 1 on a breaking change', async () => {
    writeFileSync(spec, narrowed());
    const result = await check();
    expect(result.stdout).toMatch(/with its last committed version \([0-9a-f]+ "first contract"\)/);
    expect(result.stdout).toMatch(
      /Breaking changes \(1\):\n\s+GET \/pets\s+Upper bound changed from '<= 100' to '<= 50'\. \[schema-constraint-changed\]\s+\(openapi\.yaml:\d+\)/,
    );
    expect(result.stdout).toMatch(/raise info\.version to 2\.0\.0/);
    expect(result.code).toBe(1);
  });

  it('once committed, checks the commit against the version before it; a raised major passes', async () => {
    commit(narrowed(), 'narrow limit');
    const committed = await check();
    expect(committed.stdout).toMatch(/before the last commit that changed it, [0-9a-f]+ "narrow limit"/);
    expect(committed.code).toBe(1);

    commit(narrowed().replace(/^ {2}version: 1\.0\.0$/m, '  version: 2.0.0'), 'release 2.0.0');
    const released = await check('HEAD~2');
    expect(released.stdout).toMatch(/1 breaking change\(s\), released as a new major version \(info\.version 1\.0\.0 → 2\.0\.0\)/);
    expect(released.code).toBe(0);
  });

  it('prints the comparison as JSON with --json', async () => {
    const result = await check('HEAD~2', '--json');
    const report = JSON.parse(result.stdout) as { breaking: { ruleId: string }[]; majorRaised: boolean; passes: boolean };
    expect(report.breaking.map((c) => c.ruleId)).toEqual(['schema-constraint-changed']);
    expect(report).toMatchObject({ majorRaised: true, passes: true });
  });

  it('lists every compatible change with its class, in text and JSON; a removal among them still fails', async () => {
    const committed = readFileSync(spec, 'utf8');
    const added = (s: Spec) => {
      s.components.schemas.Pet.properties[ADDED_FIELD] = { type: 'string', maxLength: 30, description: 'What the shop calls it.' };
      addOperation(s);
    };
    // The field is reported once, naming every operation that returns a Pet (GET /pets, and any a
    // designer added): each line is about the field or the operation, and both are there.
    const fieldLine = new RegExp(
      `^ {2}[A-Z]+ \\S+(?:, [A-Z]+ \\S+)* +Schema added at responses/\\d+/content/application/json/schema/(?:items/)?properties/${ADDED_FIELD} \\[no rule\\] +\\(openapi\\.yaml:\\d+\\)$`,
    );
    const operationLine = new RegExp(`^ {2}${ADDED_PATH} +PathItem added \\[no rule\\] +\\(openapi\\.yaml:\\d+\\)$`);
    const onlyTheEdit = (lines: string[]) => {
      expect(
        lines.every((line) => fieldLine.test(line) || operationLine.test(line)),
        lines.join('\n'),
      ).toBe(true);
      expect(lines.filter((line) => operationLine.test(line))).toHaveLength(1);
      expect(
        lines.some((line) => fieldLine.test(line)),
        lines.join('\n'),
      ).toBe(true);
    };
    const edit = (mutate: (s: Spec) => void) => {
      const s = parse(committed) as Spec;
      mutate(s);
      writeFileSync(spec, stringify(s));
    };

    try {
      edit(added);
      const text = await check();
      const minor = listed(text.stdout, 'Compatible changes, minor');
      onlyTheEdit(minor);
      expect(text.stdout).toMatch(/✔ No breaking change/);
      expect(text.code).toBe(0);

      const json = await check('--json');
      const report = JSON.parse(json.stdout) as { changes: Record<string, unknown>[]; compatible: { minor: number; patch: number } };
      const field = expect.objectContaining({
        class: 'minor',
        pointer: expect.stringMatching(new RegExp(`/properties/${ADDED_FIELD}$`)),
        ruleId: null,
        file: 'openapi.yaml',
        line: expect.any(Number),
      });
      const operation = expect.objectContaining({
        class: 'minor',
        where: ADDED_PATH,
        message: 'PathItem added',
        ruleId: null,
        file: 'openapi.yaml',
        line: expect.any(Number),
      });
      expect(report.changes).toHaveLength(minor.length);
      expect(report.changes).toContainEqual(field);
      expect(report.changes).toContainEqual(operation);
      expect(report.changes.filter((c) => c.where !== ADDED_PATH)).toEqual(Array(minor.length - 1).fill(field));
      expect(report.compatible).toEqual({ minor: minor.length, patch: 0 });
      expect(json.code).toBe(0);

      edit((s) => {
        added(s);
        delete s.paths['/pets'].post;
      });
      const removed = await check();
      expect(listed(removed.stdout, 'Breaking changes')).toEqual([
        expect.stringMatching(/^ {2}POST \/pets +.* \[operation-removed\] +\([0-9a-f]{7}:openapi\.yaml:\d+\)$/),
      ]);
      const stillMinor = listed(removed.stdout, 'Compatible changes, minor');
      onlyTheEdit(stillMinor);
      expect(removed.code).toBe(1);
      const removedJson = JSON.parse((await check('--json')).stdout) as { changes: { class: string; ruleId: string | null }[] };
      expect(removedJson.changes.map((c) => `${c.class} ${c.ruleId}`)).toEqual([
        'breaking operation-removed',
        ...stillMinor.map(() => 'minor null'),
      ]);
    } finally {
      writeFileSync(spec, committed);
    }
  });

  it('exits 2 with a clear message for an unknown revision, a revision without the file, or bad usage', async () => {
    const unknown = await check('no-such-branch');
    expect(unknown.stderr).toMatch(/Unknown git revision "no-such-branch"/);
    expect(unknown.code).toBe(2);

    git('checkout', '-q', '--orphan', 'empty');
    git('rm', '-q', '--cached', 'openapi.yaml');
    git('commit', '-q', '--allow-empty', '-m', 'nothing here');
    const empty = git('rev-parse', 'HEAD').trim();
    git('checkout', '-q', '-f', 'main');
    const missing = await check(empty);
    expect(missing.stderr).toMatch(/openapi\.yaml does not exist at [0-9a-f]+ "nothing here"/);
    expect(missing.code).toBe(2);

    const usage = await check('HEAD', 'HEAD~1');
    expect(usage.stderr).toMatch(/Expected at most one BASE_REF/);
    expect(usage.code).toBe(2);
  });

  it('--record keeps the contract as released; from then on that is the base, however many commits follow', async () => {
    const released = readFileSync(spec, 'utf8');
    const recorded = await check('--record');
    expect(recorded.stdout).toMatch(
      /Recorded openapi\.yaml \(info\.version 2\.0\.0\) as the released contract of major 2: contracts\/released\/2\.x\.yaml; commit it/,
    );
    const file = join(repo, 'contracts/released/2.x.yaml');
    expect(readFileSync(file, 'utf8')).toBe(released);
    git('add', 'contracts');
    git('commit', '-q', '-m', 'record the release of 2.0.0');

    commit(released.replace(/maximum: 50\n/, 'maximum: 40\n'), 'narrow limit again');
    commit(released.replace(/maximum: 50\n/, 'maximum: 40\n').replace('List animals', 'List the animals'), 'reword');
    const gated = await check();
    expect(gated.stdout).toMatch(/with the last released contract, contracts\/released\/2\.x\.yaml/);
    expect(gated.stdout).toMatch(/Upper bound changed from '<= 50' to '<= 40'/);
    expect(gated.code).toBe(1);

    const refused = await check('--record');
    expect(refused.stderr).toMatch(/Not recorded: openapi\.yaml breaks what was released without a new major version/);
    expect(refused.code).toBe(1);
    expect(readFileSync(file, 'utf8')).toBe(released);
  });
});

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
    copy.write('contracts/released/1.x.yaml', readFileSync(join(copy.dir, 'openapi.yaml'), 'utf8'));
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
    expect(checked.stdout).toMatch(/with the last released contract, contracts\/released\/1\.x\.yaml/);
    expect(checked.stdout).toMatch(new RegExp(`Property \`${FIELD}\` of \`Pet\` was removed`));
    expect(checked.stdout).toMatch(/breaking change\(s\) without a new major version \(info\.version 1\.0\.0 → 1\.0\.0\)/);
  }, 600_000);
});
