import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { run } from './run-cli.js';

const fixture = (name: string) => readFileSync(fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url)), 'utf8');
const LIBRARY = fixture('library-3.0.yaml');
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'contract-kit-breaking-'));
  writeFileSync(join(dir, 'base.yaml'), LIBRARY);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const write = (text: string) => writeFileSync(join(dir, 'openapi.yaml'), text);
const withoutScans = LIBRARY.replace(/\n {2}\/scans:[\s\S]*?(?=\ncomponents:)/, '');

describe('contract-kit check-breaking', () => {
  it('fails on a removed operation without a new major version, naming it', async () => {
    write(withoutScans);
    const checked = await run(['check-breaking', '--base', 'base.yaml'], dir);
    expect(checked.code).toBe(1);
    expect(checked.stdout).toMatch(
      /Breaking changes \(1\):\n {2}\/scans +Path `\/scans` was removed\. \[path-removed\] +\(base\.yaml:\d+\)/,
    );
    expect(checked.stdout).toContain('✖ 1 breaking change(s) without a new major version (info.version 1.4.0 → 1.4.0).');
  });

  it('passes the same change under a new major version, and an added value of an x-extensible-enum', async () => {
    write(withoutScans.replace('version: 1.4.0', 'version: 2.0.0'));
    expect((await run(['check-breaking', '--base', 'base.yaml'], dir)).code).toBe(0);
    const extensible = (text: string) =>
      text.replace('            kind: { type: string }', '            kind: { type: string, enum: [a, b], x-extensible-enum: true }');
    writeFileSync(join(dir, 'base.yaml'), extensible(LIBRARY));
    write(extensible(LIBRARY).replace('enum: [a, b]', 'enum: [a, b, c]'));
    const allowed = await run(['check-breaking', '--base', 'base.yaml', '--json'], dir);
    expect(allowed.code).toBe(0);
    const report = JSON.parse(allowed.stdout) as { breaking: unknown[]; allowed: { allowedBecause: string }[] };
    expect(report.breaking).toEqual([]);
    expect(report.allowed.map((c) => c.allowedBecause)).toEqual(['the contract marks the enum x-extensible-enum: values may be added']);
  });

  it('rates the changes of an OpenAPI 3.2 contract: items of streams, QUERY and additionalOperations, each at its operation', async () => {
    const notes = fixture('notes-3.2.yaml');
    writeFileSync(join(dir, 'base.yaml'), notes);
    const edits: [string, string][] = [
      // An answer's items lose a field clients read; a request's items need one more.
      [
        "application/jsonl:\n              itemSchema: { $ref: '#/components/schemas/Note' }",
        'application/jsonl:\n              itemSchema: { type: object }',
      ],
      [
        "application/jsonl:\n            itemSchema: { $ref: '#/components/schemas/NewNote' }",
        'application/jsonl:\n            itemSchema: { type: object, required: [text, tag] }',
      ],
      ['application/json:\n            schema: { type: object }', 'application/json:\n            schema: { type: object, required: [q] }'],
      [
        'operationId: linkNote\n',
        'operationId: linkNote\n        parameters: [{ name: rel, in: query, required: true, schema: { type: string } }]\n',
      ],
    ];
    let revision = notes;
    for (const [from, to] of edits) {
      expect(revision).toContain(from);
      revision = revision.replace(from, to);
    }
    write(revision);
    const checked = await run(['check-breaking', '--base', 'base.yaml', '--json'], dir);
    expect(checked.code, checked.stdout + checked.stderr).toBe(1);
    const { breaking } = JSON.parse(checked.stdout) as { breaking: { where: string; message: string }[] };
    expect([...new Set(breaking.map((change) => change.where))].sort()).toEqual([
      'GET /notes/export',
      'LINK /notes/{noteId}',
      'POST /notes/import',
      'QUERY /notes',
    ]);
  });

  it('compares with the last committed version by default', async () => {
    const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, stdio: 'ignore' });
    git('init', '-q');
    write(LIBRARY);
    git('add', 'openapi.yaml');
    git('-c', 'user.email=kit@example.com', '-c', 'user.name=kit', 'commit', '-qm', 'the contract');
    write(withoutScans);
    const checked = await run(['check-breaking'], dir);
    expect(checked.code).toBe(1);
    expect(checked.stdout).toMatch(/^Comparing openapi\.yaml with its last committed version \([0-9a-f]{7} "the contract"\)/);
  });

  it('passes in a repository without a commit yet (git init alone), saying why', async () => {
    execFileSync('git', ['init', '-q'], { cwd: dir, stdio: 'ignore' });
    write(LIBRARY);
    const checked = await run(['check-breaking'], dir);
    expect(checked.stderr).toBe('');
    expect(checked.code).toBe(0);
    expect(checked.stdout).toContain('openapi.yaml has never been committed: no client can depend on an earlier version.');
  });

  it('reads a contract of several files at a revision, one of them in a folder above its own', async () => {
    const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, stdio: 'ignore' });
    mkdirSync(join(dir, 'api'));
    mkdirSync(join(dir, 'shared'));
    const thing = "{ application/json: { schema: { $ref: '../shared/schemas.yaml#/Thing' } } }";
    const contract = (paths: string[]) =>
      `openapi: 3.0.3\ninfo: { title: t, version: 1.0.0 }\npaths:\n${paths.map((p) => `  /${p}: { get: { operationId: ${p}, responses: { '200': { description: ok, content: ${thing} } } } }\n`).join('')}`;
    writeFileSync(join(dir, 'api', 'openapi.yaml'), contract(['a', 'b']));
    writeFileSync(join(dir, 'shared', 'schemas.yaml'), 'Thing: { type: object, properties: { id: { type: string } } }\n');
    git('init', '-q');
    git('add', '-A');
    git('-c', 'user.email=kit@example.com', '-c', 'user.name=kit', 'commit', '-qm', 'the contract');
    writeFileSync(join(dir, 'api', 'openapi.yaml'), contract(['a']));
    const checked = await run(['check-breaking', '--spec', 'api/openapi.yaml'], dir);
    expect(checked.code, checked.stderr).toBe(1);
    expect(checked.stdout).toMatch(/Breaking changes \(1\):\n {2}\/b +Path `\/b` was removed/);
  });

  it('refuses a base that is neither a file nor a revision, saying why without the usage', async () => {
    write(LIBRARY);
    const wrong = await run(['check-breaking', '--base', 'nowhere'], dir);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/not in a git work tree|neither a file nor a git revision/);
    expect(wrong.stderr).not.toContain('Usage:');
  });

  it('reads the major of an info.version such as 10 or 2.0, and fails a breaking change under one that has none', async () => {
    const versioned = (text: string, version: string) => text.replace('version: 1.4.0', `version: '${version}'`);
    writeFileSync(join(dir, 'base.yaml'), versioned(LIBRARY, '10'));
    write(versioned(withoutScans, '10'));
    const same = await run(['check-breaking', '--base', 'base.yaml'], dir);
    expect(same.code, same.stderr).toBe(1);
    expect(same.stdout).toContain('raise info.version to 11.0.0');
    write(versioned(withoutScans, '11'));
    expect((await run(['check-breaking', '--base', 'base.yaml'], dir)).code).toBe(0);
    writeFileSync(join(dir, 'base.yaml'), versioned(LIBRARY, '2.0'));
    write(versioned(withoutScans, '3.0'));
    expect((await run(['check-breaking', '--base', 'base.yaml'], dir)).code).toBe(0);
    writeFileSync(join(dir, 'base.yaml'), versioned(LIBRARY, '2024-04-10'));
    write(versioned(withoutScans, '2025-01-01'));
    const dated = await run(['check-breaking', '--base', 'base.yaml'], dir);
    expect(dated.code, dated.stderr).toBe(1);
    expect(dated.stdout).toContain('give info.version a major version number (such as 2.0.0; "2024-04-10" has none)');
  });

  describe('with a folder of released contracts (--released)', () => {
    const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, stdio: 'ignore' });
    const commitAll = (message: string) => {
      git('add', '-A');
      git('-c', 'user.email=kit@example.com', '-c', 'user.name=kit', 'commit', '-qm', message);
    };
    const release = (major: number, text: string) => {
      mkdirSync(join(dir, 'released'), { recursive: true });
      writeFileSync(join(dir, 'released', `${major}.x.yaml`), text);
    };
    const major2 = (text: string) => text.replace('version: 1.4.0', 'version: 2.0.0');
    beforeEach(() => git('init', '-q'));

    it('compares with the released contract of its major, or the highest below it, not with git', async () => {
      release(1, withoutScans);
      write(LIBRARY);
      commitAll('1.4.0 released');
      // The committed contract has /scans; the released one has not: only the released one is compared with.
      const added = await run(['check-breaking', '--released', 'released'], dir);
      expect(added.code, added.stderr).toBe(0);
      expect(added.stdout).toMatch(/^Comparing openapi\.yaml with the last released contract, released\/1\.x\.yaml…/);
      expect(added.stdout).toMatch(/\/scans +PathItem added/);
      release(1, LIBRARY);
      write(withoutScans);
      const removed = await run(['check-breaking', '--released', 'released'], dir);
      expect(removed.code).toBe(1);
      expect(removed.stdout).toMatch(/\/scans +Path `\/scans` was removed\. \[path-removed\] +\(released\/1\.x\.yaml:\d+\)/);
    });

    it('records the contract as the released one of its major with --record once it passes, and not before', async () => {
      write(LIBRARY);
      commitAll('the contract');
      const first = await run(['check-breaking', '--released', 'released', '--record'], dir);
      expect(first.code, first.stderr).toBe(0);
      expect(first.stdout).toContain(
        'Recorded openapi.yaml (info.version 1.4.0) as the released contract of major 1: released/1.x.yaml; commit it.',
      );
      expect(readFileSync(join(dir, 'released', '1.x.yaml'), 'utf8')).toBe(LIBRARY);
      write(withoutScans);
      const refused = await run(['check-breaking', '--released', 'released', '--record', '--json'], dir);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('Not recorded: openapi.yaml breaks what was released without a new major version.');
      expect(JSON.parse(refused.stdout)).toMatchObject({ base: 'released/1.x.yaml', passes: false });
      expect(readFileSync(join(dir, 'released', '1.x.yaml'), 'utf8')).toBe(LIBRARY);
      write(major2(withoutScans));
      const raised = await run(['check-breaking', '--released', 'released', '--record'], dir);
      expect(raised.code, raised.stdout).toBe(0);
      expect(readFileSync(join(dir, 'released', '2.x.yaml'), 'utf8')).toBe(major2(withoutScans));
      const usage = await run(['check-breaking', '--record'], dir);
      expect(usage.code).toBe(2);
      expect(usage.stderr).toContain('give --released DIR');
    });

    it('compares each earlier major still served with its own last committed version', async () => {
      release(1, LIBRARY);
      write(major2(withoutScans));
      commitAll('2.0.0, 1.x served beside it');
      release(1, withoutScans);
      const broken = await run(['check-breaking', '--released', 'released', '--json'], dir);
      expect(broken.code).toBe(1);
      const report = JSON.parse(broken.stdout) as {
        passes: boolean;
        previousVersions: { file: string; passes: boolean; breaking: { ruleId: string }[] }[];
      };
      expect(report).toMatchObject({ base: 'released/1.x.yaml', passes: true });
      expect(report.previousVersions).toMatchObject([{ file: 'released/1.x.yaml', passes: false }]);
      expect(report.previousVersions[0]!.breaking.map((c) => c.ruleId)).toEqual(['path-removed']);
      // Its version number does not excuse it: a released line keeps its major.
      release(1, major2(withoutScans));
      const text = await run(['check-breaking', '--released', 'released'], dir);
      expect(text.code).toBe(1);
      expect(text.stdout).toMatch(
        /\nComparing released\/1\.x\.yaml \(the 1\.x line, still served\) with its last committed version \([0-9a-f]{7} "2\.0\.0, 1\.x served beside it"\)…\n/,
      );
      expect(text.stdout).toContain('✖ 1 breaking change(s) without a new major version (info.version 1.4.0 → 2.0.0).');
    });

    it('refuses a sunset without the day it was announced, in the contract or a served earlier major', async () => {
      const sunset = (text: string, announced = '') =>
        text.replace('  version: 1.4.0\n', `  version: 1.4.0\n  x-sunset: '2031-06-30'\n${announced}`);
      release(1, sunset(LIBRARY));
      write(major2(LIBRARY));
      commitAll('2.0.0');
      const checked = await run(['check-breaking', '--released', 'released', '--json'], dir);
      expect(checked.code).toBe(1);
      expect((JSON.parse(checked.stdout) as { scheduledEnds: string[] }).scheduledEnds).toEqual([
        expect.stringMatching(
          /^released\/1\.x\.yaml: info\.x-sunset 2031-06-30 without info\.x-deprecated-at, so every answer under \/library would say Deprecation: @0/,
        ),
      ]);
      release(1, sunset(LIBRARY, "  x-deprecated-at: '2026-01-01'\n"));
      expect((await run(['check-breaking', '--released', 'released'], dir)).code).toBe(0);
      write(sunset(LIBRARY));
      const own = await run(['check-breaking', '--base', 'released/1.x.yaml'], dir);
      expect(own.code).toBe(1);
      expect(own.stdout).toContain('✖ openapi.yaml: info.x-sunset 2031-06-30 without info.x-deprecated-at');
    });

    it("takes the folder from the configuration's checkBreaking section", async () => {
      release(1, LIBRARY);
      write(withoutScans);
      writeFileSync(join(dir, 'contract-kit.config.mjs'), "export default { checkBreaking: { released: 'released' } };\n");
      commitAll('the contract');
      const checked = await run(['check-breaking'], dir);
      expect(checked.code, checked.stderr).toBe(1);
      expect(checked.stdout).toMatch(/^Comparing openapi\.yaml with the last released contract, released\/1\.x\.yaml…/);
    });
  });
});
