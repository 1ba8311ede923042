// `npm run build` compiles into an empty folder and makes dist/ exactly that (scripts/build-fresh.mjs):
// a handler or any module removed from the sources leaves no file behind for `npm run serve`
// to load, nor for the client package to publish.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadSpec } from '../../src/contract/load-spec.js';
import { listOperations } from 'contract-kit';
import { ROOT, run } from '../support/run.js';

const workDir = mkdtempSync(join(tmpdir(), 'animal-store-build-'));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

const write = (path: string, text: string) => {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
};
const buildFresh = (project: string, outDir: string) => run(process.execPath, [join(ROOT, 'scripts/build-fresh.mjs'), project, outDir]);
/** Staging folders a build left next to `dir`'s folder. */
const leftovers = (dir: string) => readdirSync(dirname(dir)).filter((name) => name.includes('.building-'));

describe('npm run build', () => {
  it("leaves nothing of a removed handler or module in dist/ or the packages' dist/", async () => {
    // What an earlier build wrote for sources that are gone now.
    const stale = [
      'dist/src/service/http/handlers/removedPet.js',
      'dist/src/service/http/handlers/removedPet.d.ts',
      'dist/src/service/http/handlers/removedPet.js.map',
      'dist/generated/removed-table.js',
      'packages/contract-kit/dist/removed.js',
      'dist/src/removed-folder/module.js',
      'packages/client/dist/removed.js',
    ];
    for (const path of stale) write(join(ROOT, path), 'export {};\n');

    const build = await run('npm', ['run', '-s', 'build'], { timeoutMs: 170_000 });
    expect(build.code, build.stderr).toBe(0);

    for (const path of stale) expect(existsSync(join(ROOT, path)), path).toBe(false);
    expect(existsSync(join(ROOT, 'dist/src/removed-folder'))).toBe(false);
    // What the sources make is all there: the service, every operation's handler, the client.
    expect(existsSync(join(ROOT, 'dist/src/service/main.js'))).toBe(true);
    for (const { name: operationId } of listOperations(loadSpec())) {
      expect(existsSync(join(ROOT, `dist/src/service/http/handlers/${operationId}.js`)), operationId).toBe(true);
    }
    expect(existsSync(join(ROOT, 'packages/client/dist/index.js'))).toBe(true);
    expect(existsSync(join(ROOT, 'packages/contract-kit/dist/index.js'))).toBe(true);
    expect(leftovers(join(ROOT, 'dist'))).toEqual([]);
    expect(leftovers(join(ROOT, 'packages/client/dist'))).toEqual([]);
  }, 180_000);

  describe('scripts/build-fresh.mjs', () => {
    const project = join(workDir, 'project');
    const tsconfig = join(project, 'tsconfig.json');
    const out = join(project, 'out');
    write(tsconfig, JSON.stringify({ compilerOptions: { rootDir: 'src', outDir: 'out', strict: true, types: [] }, include: ['src'] }));

    it('removes the output of a source removed since the last build', async () => {
      write(join(project, 'src/kept.ts'), 'export const kept = 1;\n');
      write(join(project, 'src/nested/removed.ts'), 'export const removed = 2;\n');
      expect((await buildFresh(tsconfig, out)).code).toBe(0);
      expect(existsSync(join(out, 'nested/removed.js'))).toBe(true);

      rmSync(join(project, 'src/nested'), { recursive: true });
      const again = await buildFresh(tsconfig, out);
      expect(again.code, again.stderr).toBe(0);
      expect(readdirSync(out)).toEqual(['kept.js']);
      expect(leftovers(out)).toEqual([]);
    }, 60_000);

    it('leaves the output as it was when the compiler fails', async () => {
      const before = readFileSync(join(out, 'kept.js'), 'utf8');
      write(join(project, 'src/broken.ts'), 'export const broken: number = "text";\n');
      const failed = await buildFresh(tsconfig, out);
      expect(failed.code).not.toBe(0);
      expect(failed.stdout + failed.stderr).toMatch(/TS2322/);
      expect(readdirSync(out)).toEqual(['kept.js']);
      expect(readFileSync(join(out, 'kept.js'), 'utf8')).toBe(before);
      expect(leftovers(out)).toEqual([]);
    }, 60_000);
  });
});

describe('npm run release', () => {
  it('refuses to empty a folder that holds files and is no earlier release, before building anything, and keeps its files', async () => {
    const folder = join(workDir, 'not-a-release');
    write(join(folder, 'notes.txt'), 'mine');
    const outcome = await run('npm', ['run', '-s', 'release', '--', '--output', folder], { cwd: ROOT });
    expect(outcome.code).toBe(2);
    expect(outcome.stderr).toContain(`${folder} holds files (notes.txt…) and is no earlier release (it has no server.js)`);
    expect(readFileSync(join(folder, 'notes.txt'), 'utf8')).toBe('mine');
    // An absolute folder is taken as it is, not under the repository.
    expect(existsSync(join(ROOT, folder))).toBe(false);
  });
});
