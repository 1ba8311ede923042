import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { apiVersion } from '@animal-store/client';
import { GENERATED_HEADER } from '../../src/toolkit/codegen/generate.js';
import { loadSpec } from '../../src/contract/load-spec.js';
import { listOperations } from '../../src/contract/operations.js';
import { ADDED, withAddedOperation } from '../support/added-operation.js';
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

  it("fails --check after the contract changed, naming the service's and the client's stale types and what to run", async () => {
    const result = await generate('--check', '--spec', editedSpec(), '--out', join(ROOT, 'generated'));
    expect(result.code).toBe(1);
    const lines = result.stderr.split('\n');
    expect(lines).toContain('stale: generated/openapi.ts');
    expect(lines).toContain('stale: packages/client/src/generated/openapi.ts');
    expect(result.stderr).toContain('Run `npm run generate` and commit the result.');
  });

  it("fails --check when info.version changed, naming the client package, the repository's pin on it and the lock file", async () => {
    const spec = join(workDir, 'bumped.yaml');
    writeFileSync(spec, readFileSync(join(ROOT, 'openapi.yaml'), 'utf8').replace(/^ {2}version: 1\.0\.0$/m, '  version: 1.1.0'));
    const result = await generate('--check', '--spec', spec, '--out', join(ROOT, 'generated'));
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/stale: .*packages\/client\/src\/generated\/contract\.ts/);
    expect(result.stderr).toMatch(/stale: .*packages\/client\/package\.json has version 1\.0\.0, the contract 1\.1\.0/);
    expect(result.stderr).toMatch(/stale: .*package\.json depends on @animal-store\/client 1\.0\.0, the contract is 1\.1\.0/);
    expect(result.stderr).toMatch(/stale: .*package-lock\.json records @animal-store\/client 1\.0\.0/);
  });

  it('writes the types and the handler map, each with the do-not-edit header', async () => {
    const out = join(workDir, 'out');
    const result = await generate('--spec', editedSpec(), '--out', out);
    expect(result.code).toBe(0);
    // No operation table: the service lists the operations from the contract it serves; operations.ts only names their types.
    expect(readdirSync(out).sort()).toEqual(['handlers.ts', 'openapi.ts', 'operations.ts']);
    // The client package has its own copy of the types, in its folder next to the --out folder by default.
    const clientOut = join(workDir, 'packages', 'client', 'src', 'generated');
    expect(readdirSync(clientOut).sort()).toEqual(['contract.ts', 'openapi.ts']);
    for (const path of [...readdirSync(out).map((n) => join(out, n)), ...readdirSync(clientOut).map((n) => join(clientOut, n))]) {
      expect(readFileSync(path, 'utf8').startsWith(GENERATED_HEADER), path).toBe(true);
    }
    expect(readFileSync(join(out, 'openapi.ts'), 'utf8')).toMatch(/nickname\?: string;/);
    expect(readFileSync(join(clientOut, 'openapi.ts'), 'utf8')).toBe(readFileSync(join(out, 'openapi.ts'), 'utf8'));
    const again = await generate('--check', '--spec', join(workDir, 'openapi.yaml'), '--out', out);
    expect(again.code).toBe(0);
  });

  it('stops on a field no store keeps before writing anything: types, client, stubs', async () => {
    const dir = join(workDir, 'storage-gap');
    const out = join(dir, 'generated');
    const clientOut = join(dir, 'packages', 'client', 'src', 'generated');
    const handlers = join(dir, 'handlers');
    cpSync(join(ROOT, 'generated'), out, { recursive: true });
    cpSync(join(ROOT, 'packages', 'client', 'src', 'generated'), clientOut, { recursive: true });
    mkdirSync(handlers);
    const spec = parse(readFileSync(join(ROOT, 'openapi.yaml'), 'utf8')) as { components: { schemas: Record<string, any> } };
    spec.components.schemas.Pet.properties.probeBornOn = { type: 'string', format: 'date' };
    spec.components.schemas.Pet.required.push('probeBornOn');
    writeFileSync(join(dir, 'openapi.yaml'), stringify(spec));
    /** Every file under the folder, with its text. */
    const files = (folder: string): Record<string, string> =>
      Object.fromEntries(
        readdirSync(folder, { recursive: true, withFileTypes: true })
          .filter((entry) => entry.isFile())
          .map((entry) => [join(entry.parentPath, entry.name), readFileSync(join(entry.parentPath, entry.name), 'utf8')]),
      );
    const before = files(dir);

    const result = await generate('--spec', join(dir, 'openapi.yaml'), '--out', out, '--client-out', clientOut, '--handlers', handlers);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/Pet\.probeBornOn is required in every animal returned, but no store keeps it/);
    expect(result.stderr).toContain('Nothing was written.');
    expect(result.stdout).toBe('');
    expect(files(dir)).toEqual(before);
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
    const spec = join(workDir, 'with-added-operation.yaml');
    writeFileSync(spec, stringify(withAddedOperation()));
    const id = ADDED.operationId;
    const handlersDir = join(workDir, 'handlers');
    cpSync(join(ROOT, 'src/service/http/handlers'), handlersDir, { recursive: true });
    const before = readFileSync(join(handlersDir, 'listPets.ts'), 'utf8');
    const out = join(workDir, 'out-stub');

    const missing = await generate('--check', '--spec', spec, '--out', out, '--handlers', handlersDir);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(new RegExp(`no handler file: .*handlers/${id}\\.ts`));

    const first = await generate('--spec', spec, '--out', out, '--handlers', handlersDir);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(new RegExp(`created .*handlers/${id}\\.ts \\(stub answering 501`));
    const stub = readFileSync(join(handlersDir, `${id}.ts`), 'utf8');
    expect(stub).toContain(`export const ${id}: Handler<'${id}'> = notImplemented('${id}');`);
    expect(readFileSync(join(out, 'handlers.ts'), 'utf8')).toContain(`import { ${id} } from`);
    expect(readFileSync(join(handlersDir, 'listPets.ts'), 'utf8')).toBe(before);

    writeFileSync(join(handlersDir, `${id}.ts`), '// written by hand\n');
    const second = await generate('--spec', spec, '--out', out, '--handlers', handlersDir);
    expect(second.code).toBe(0);
    expect(second.stdout).not.toContain(`${id}.ts (stub`);
    expect(readFileSync(join(handlersDir, `${id}.ts`), 'utf8')).toBe('// written by hand\n');
    // Three runs of generate: more than the default 30 s on a loaded machine (npm test on two cores).
  }, 120_000);

  it('maps every operation of the contract to its handler file, and versions the client as the contract', () => {
    const doc = loadSpec();
    const ids = listOperations(doc).map((op) => op.operationId);
    expect(ids.length).toBeGreaterThan(0);
    const map = readFileSync(join(ROOT, 'generated', 'handlers.ts'), 'utf8');
    expect(
      [...map.matchAll(/^import \{ (\w+) \} from '\.\.\/src\/service\/http\/handlers\/(\w+)\.js';$/gm)].map((m) => [m[1], m[2]]),
    ).toEqual(ids.map((id) => [id, id]));
    expect(map).toContain(`export const handlers = { ${ids.join(', ')} } satisfies Handlers;`);
    expect(apiVersion).toBe(doc.info.version);
  });
});
