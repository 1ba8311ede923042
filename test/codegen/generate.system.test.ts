// `npm run generate` is contract-kit generate (its own tests are packages/contract-kit/test/generate*.ts)
// with the Animal Store's plugins of contract-kit.config.ts: the storage gate and the client package.
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { apiVersion } from '@animal-store/client';
import { listOperations, loadContract } from 'contract-kit';
import { ROOT, run } from '../support/run.js';

const workDir = mkdtempSync(join(tmpdir(), 'animal-store-generate-'));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

/** `npm run generate` with ARGS after its own, in `cwd` (the repository's tsconfig, for its paths, wherever it runs). */
const generate = (args: string[], cwd = ROOT) =>
  run(
    process.execPath,
    [
      '--import',
      import.meta.resolve('tsx'),
      join(ROOT, 'packages/contract-kit/src/cli/main.ts'),
      'generate',
      '--config',
      join(ROOT, 'contract-kit.config.ts'),
      '--handlers',
      'src/service/http/handlers',
      ...args,
    ],
    { cwd, env: { TSX_TSCONFIG_PATH: join(ROOT, 'tsconfig.json') } },
  );

/** Every file under the folder, with its text. */
const files = (folder: string): Record<string, string> =>
  Object.fromEntries(
    readdirSync(folder, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => [join(entry.parentPath, entry.name), readFileSync(join(entry.parentPath, entry.name), 'utf8')]),
  );

/** The contract's version and the next minor. */
async function versions(): Promise<{ version: string; bumped: string }> {
  const { version } = (await loadContract(join(ROOT, 'openapi.yaml'))).info;
  const [major, minor] = version.split('.').map(Number);
  return { version, bumped: `${major}.${minor! + 1}.0` };
}

describe('npm run generate', () => {
  it('finds generated/ and the client package up to date with openapi.yaml', async () => {
    const result = await run('npm', ['run', '-s', 'check:generated']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
  });

  it("keeps the client package's version at the contract's: its package.json, the repository's pin, the lock file", async () => {
    const { version, bumped } = await versions();
    const dir = join(workDir, 'bumped');
    mkdirSync(join(dir, 'packages', 'client'), { recursive: true });
    for (const file of ['package.json', 'package-lock.json', 'packages/client/package.json']) cpSync(join(ROOT, file), join(dir, file));
    cpSync(join(ROOT, 'src/service/http/handlers'), join(dir, 'src/service/http/handlers'), { recursive: true });
    writeFileSync(
      join(dir, 'openapi.yaml'),
      readFileSync(join(ROOT, 'openapi.yaml'), 'utf8').replace(`\n  version: ${version}\n`, `\n  version: ${bumped}\n`),
    );
    const stale = await generate(['--check'], dir);
    expect(stale.code).toBe(1);
    for (const file of ['packages/client/src/generated/contract.ts', 'packages/client/package.json', 'package.json', 'package-lock.json'])
      expect(stale.stderr.split('\n')).toContain(`out of date: ${file} (plugin client-package)`);

    const written = await generate([], dir);
    expect(written.code, written.stderr).toBe(0);
    const json = (file: string) => JSON.parse(readFileSync(join(dir, file), 'utf8')) as Record<string, any>;
    expect(json('packages/client/package.json').version).toBe(bumped);
    expect(json('package.json').dependencies['@animal-store/client']).toBe(bumped);
    expect(json('package-lock.json').packages['packages/client'].version).toBe(bumped);
    expect(json('package-lock.json').packages[''].dependencies['@animal-store/client']).toBe(bumped);
    expect(readFileSync(join(dir, 'packages/client/src/generated/contract.ts'), 'utf8')).toContain(`apiVersion = "${bumped}"`);
    // The client's copy of the types is the service's.
    expect(readFileSync(join(dir, 'packages/client/src/generated/openapi.ts'), 'utf8')).toBe(
      readFileSync(join(dir, 'generated/openapi.ts'), 'utf8'),
    );
    expect((await generate(['--check'], dir)).code).toBe(0);
  }, 120_000);

  it('stops on a field no store keeps before writing anything: types, client, versions, stubs', async () => {
    const dir = join(workDir, 'storage-gap');
    mkdirSync(dir);
    const spec = parse(readFileSync(join(ROOT, 'openapi.yaml'), 'utf8')) as { components: { schemas: Record<string, any> } };
    spec.components.schemas.Pet.properties.probeBornOn = { type: 'string', format: 'date' };
    spec.components.schemas.Pet.required.push('probeBornOn');
    writeFileSync(join(dir, 'openapi.yaml'), stringify(spec));
    const before = files(dir);

    const result = await generate(['--spec', join(dir, 'openapi.yaml'), '--out', join(dir, 'generated')], dir);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^plugin pet-storage-check: Pet\.probeBornOn is required in every animal returned, but no store keeps it/,
    );
    expect(result.stderr).toContain('\nNothing was written.\n');
    expect(result.stdout).toBe('');
    expect(files(dir)).toEqual(before);
  });

  it('maps every operation of the contract to its handler file, and versions the client as the contract', async () => {
    const doc = await loadContract(join(ROOT, 'openapi.yaml'));
    const names = listOperations(doc).map((op) => op.name);
    expect(names.length).toBeGreaterThan(0);
    const map = readFileSync(join(ROOT, 'generated', 'handlers.ts'), 'utf8');
    expect(
      [...map.matchAll(/^import \{ (\w+) \} from '\.\.\/src\/service\/http\/handlers\/(\w+)\.js';$/gm)].map((m) => [m[1], m[2]]),
    ).toEqual(names.map((name) => [name, name]));
    expect(map).toContain(`export const handlers = { ${names.join(', ')} } satisfies Handlers<Operations, Context>;`);
    expect(apiVersion).toBe(doc.info.version);
  });
});
