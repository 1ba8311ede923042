import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { apiVersion } from '@animal-store/client';
import { operations } from '../../generated/operations.js';
import { GENERATED_HEADER } from '../../src/codegen/generate.js';
import { bin, ROOT, run } from '../support/run.js';

const workDir = mkdtempSync(join(tmpdir(), 'animal-store-generate-'));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

const generate = (...args: string[]) => run(bin('tsx'), [join(ROOT, 'scripts/generate.ts'), ...args]);

/** A copy of the contract with Pet given one more optional field. */
function editedSpec(): string {
  const path = join(workDir, 'openapi.yaml');
  const text = readFileSync(join(ROOT, 'openapi.yaml'), 'utf8').replace(
    '    Pet:\n      description: An animal in the store.\n      type: object\n      additionalProperties: false\n      required:\n        - id\n        - name\n        - categoryId\n        - status\n      properties:\n',
    '    Pet:\n      description: An animal in the store.\n      type: object\n      additionalProperties: false\n      required:\n        - id\n        - name\n        - categoryId\n        - status\n      properties:\n        nickname:\n          type: string\n',
  );
  expect(text).toContain('nickname');
  writeFileSync(path, text);
  return path;
}

describe('npm run generate', () => {
  it('finds generated/ up to date with openapi.yaml', async () => {
    const result = await generate('--check');
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
  });

  it('fails --check after the contract changed, naming the stale file and what to run', async () => {
    const result = await generate('--check', '--spec', editedSpec(), '--out', join(ROOT, 'generated'));
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/stale: .*generated\/openapi\.ts/);
    expect(result.stderr).toContain('Run `npm run generate` and commit the result.');
  });

  it('fails --check when info.version changed, naming the client package, the service\'s pin on it and the lock file', async () => {
    const spec = join(workDir, 'bumped.yaml');
    writeFileSync(spec, readFileSync(join(ROOT, 'openapi.yaml'), 'utf8').replace(/^  version: 1\.0\.0$/m, '  version: 1.1.0'));
    const result = await generate('--check', '--spec', spec, '--out', join(ROOT, 'generated'));
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/stale: .*packages\/client\/src\/generated\/contract\.ts/);
    expect(result.stderr).toMatch(/stale: .*packages\/client\/package\.json has version 1\.0\.0, the contract 1\.1\.0/);
    expect(result.stderr).toMatch(/stale: .*package\.json depends on @animal-store\/client 1\.0\.0, the contract is 1\.1\.0/);
    expect(result.stderr).toMatch(/stale: .*package-lock\.json records @animal-store\/client 1\.0\.0/);
  });

  it('writes the types and the operation table, each with the do-not-edit header', async () => {
    const out = join(workDir, 'out');
    const result = await generate('--spec', editedSpec(), '--out', out);
    expect(result.code).toBe(0);
    expect(readdirSync(out).sort()).toEqual(['handlers.ts', 'operations.ts']);
    // The types go to the client package's folder, next to the --out folder by default.
    const clientOut = join(workDir, 'packages', 'client', 'src', 'generated');
    expect(readdirSync(clientOut).sort()).toEqual(['contract.ts', 'openapi.ts']);
    for (const path of [...readdirSync(out).map((n) => join(out, n)), ...readdirSync(clientOut).map((n) => join(clientOut, n))]) {
      expect(readFileSync(path, 'utf8').startsWith(GENERATED_HEADER), path).toBe(true);
    }
    expect(readFileSync(join(clientOut, 'openapi.ts'), 'utf8')).toMatch(/nickname\?: string;/);
    const again = await generate('--check', '--spec', join(workDir, 'openapi.yaml'), '--out', out);
    expect(again.code).toBe(0);
  });

  it('fails --check when generated/ holds a file the contract does not produce', async () => {
    const out = join(workDir, 'extra');
    cpSync(join(ROOT, 'generated'), out, { recursive: true });
    writeFileSync(join(out, 'handwritten.ts'), 'export {};\n');
    const result = await generate('--check', '--out', out);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/not generated from the contract: .*handwritten\.ts/);
  });

  it('refuses an unknown option with the help text', async () => {
    const result = await generate('--chek');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("Unknown option '--chek'");
    expect(result.stderr).toContain('Usage: npm run generate');
  });

  it('writes a 501 stub for an operation without a handler, and never overwrites a handler', async () => {
    const spec = join(workDir, 'with-delete.yaml');
    const text = readFileSync(join(ROOT, 'openapi.yaml'), 'utf8').replace(
      '  /pets/{petId}:\n    get:\n',
      [
        '  /pets/{petId}:',
        '    delete:',
        '      operationId: deletePet',
        '      summary: Remove an animal',
        '      description: Removes an animal.',
        '      tags: [Pets]',
        '      parameters:',
        "        - $ref: '#/components/parameters/PetId'",
        '      responses:',
        "        '204':",
        '          description: Removed.',
        '    get:',
        '',
      ].join('\n'),
    );
    writeFileSync(spec, text);
    const handlersDir = join(workDir, 'handlers');
    cpSync(join(ROOT, 'src/server/handlers'), handlersDir, { recursive: true });
    const before = readFileSync(join(handlersDir, 'listPets.ts'), 'utf8');
    const out = join(workDir, 'out-stub');

    const missing = await generate('--check', '--spec', spec, '--out', out, '--handlers', handlersDir);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/no handler file: .*handlers\/deletePet\.ts/);

    const first = await generate('--spec', spec, '--out', out, '--handlers', handlersDir);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/created .*deletePet\.ts \(stub answering 501/);
    const stub = readFileSync(join(handlersDir, 'deletePet.ts'), 'utf8');
    expect(stub).toContain("export const deletePet: Handler<'deletePet'> = async () => {");
    expect(stub).toContain("throw new NotImplementedError('deletePet');");
    expect(readFileSync(join(out, 'handlers.ts'), 'utf8')).toContain('deletePet');
    expect(readFileSync(join(handlersDir, 'listPets.ts'), 'utf8')).toBe(before);

    writeFileSync(join(handlersDir, 'deletePet.ts'), '// written by hand\n');
    const second = await generate('--spec', spec, '--out', out, '--handlers', handlersDir);
    expect(second.code).toBe(0);
    expect(second.stdout).not.toContain('deletePet.ts (stub');
    expect(readFileSync(join(handlersDir, 'deletePet.ts'), 'utf8')).toBe('// written by hand\n');
  });

  it('builds the operation table from the contract', () => {
    expect(Object.keys(operations)).toEqual(['listPets', 'createPet', 'getPet']);
    expect(operations.getPet).toMatchObject({
      method: 'get',
      path: '/pets/{petId}',
      expressPath: '/pets/:petId',
      deprecated: true,
      deprecatedAt: '2026-01-01T00:00:00Z',
      sunset: '2030-12-05T00:00:00Z',
      successor: '/pets',
    });
    expect(operations.createPet.headerParameters).toEqual(['Idempotency-Key']);
    expect(operations.createPet).toMatchObject({ method: 'post', path: '/pets', deprecated: false });
    expect(apiVersion).toBe('1.0.0');
  });
});
