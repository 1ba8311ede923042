import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { run } from './run-cli.js';

const LIBRARY = readFileSync(fileURLToPath(new URL('./fixtures/library-3.0.yaml', import.meta.url)), 'utf8');
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
});
