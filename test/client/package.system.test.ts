import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSpec } from '../../src/contract/load-spec.js';
import { bin, ROOT, run } from '../support/run.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

// The client as application developers get it: `npm pack` of packages/client, installed from the
// tarball into an empty project, its example type-checked against the installed types and run
// against the real server.

const CLIENT_DIR = join(ROOT, 'packages', 'client');

/** Bytes of every file under `path`. */
function bytesUnder(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.size;
  return readdirSync(path).reduce((sum, name) => sum + bytesUnder(join(path, name)), 0);
}

/** Names of the packages installed in `nodeModules` (scoped ones as @scope/name). */
function installedPackages(nodeModules: string): string[] {
  return readdirSync(nodeModules)
    .filter((name) => !name.startsWith('.'))
    .flatMap((name) => (name.startsWith('@') ? readdirSync(join(nodeModules, name)).map((inner) => `${name}/${inner}`) : [name]))
    .sort();
}

/** Module specifiers a compiled file imports or re-exports. */
function importsOf(text: string): string[] {
  return [...text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s*['"]([^'"]+)['"]/g)].map((m) => m[1]!);
}

/** The commands of the README's sh block after "Get it from the Animal Store's repository". */
function readmeCommands(): string[] {
  const readme = readFileSync(join(CLIENT_DIR, 'README.md'), 'utf8');
  const block = /Get it from the Animal Store's repository[^`]*```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
  return block.split('\n').filter((line) => line.trim() && !line.startsWith('#'));
}

let work: string;
let server: TestServer;
/** `npm install <tarball>`, as `npm run client:pack` printed it. */
let installCommand: string[];
beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'animal-store-client-pack-'));
  const [pack, install] = readmeCommands();
  expect(pack).toBe('npm run client:pack');
  expect(install).toMatch(/^npm install \S+\.tgz$/);
  // The README's command, into a folder of the test's (--out) rather than the repository's build/.
  const packed = await run('npm', ['run', '-s', 'client:pack', '--', '--out', work], { timeoutMs: 120_000 });
  expect(packed.code, packed.stderr).toBe(0);
  const printed = /^ {2}(npm install \S+)$/m.exec(packed.stdout)?.[1];
  expect(printed, packed.stdout).toMatch(/^npm install \S+\.tgz$/);
  installCommand = printed!.split(' ');
  server = await startTestServer();
}, 180_000);
afterAll(async () => {
  await server?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

/** Runs a compiled example of the client against the server with a new Free key, after storing an animal named `name`; it must exit 0, silent on stderr. */
async function runExample(compiled: string, name: string) {
  const key = await server.newKey('free');
  await server.store.createPet({ name, categoryId: 1, status: 'available' });
  const result = await run(process.execPath, [compiled], {
    cwd: dirname(dirname(compiled)),
    env: { ANIMAL_STORE_URL: server.baseUrl, ANIMAL_STORE_KEY: key },
  });
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return result;
}

describe('the client package (@animal-store/client)', () => {
  it('is publishable, versioned with the contract, and depends on openapi-fetch alone', () => {
    const manifest = JSON.parse(readFileSync(join(CLIENT_DIR, 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(manifest.private).toBeUndefined();
    expect(manifest.version).toBe(loadSpec().info.version);
    expect(manifest.sideEffects).toBe(false);
    expect(Object.keys(manifest.dependencies as object)).toEqual(['openapi-fetch']);
    // The service depends on the client, never the other way round.
    const root = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    expect(root.dependencies['@animal-store/client']).toBe(manifest.version);
  });

  it('installs from its tarball into an empty project, type-checks its example and runs it against the server', async () => {
    const project = join(work, 'app');
    cpSync(join(CLIENT_DIR, 'examples'), project, { recursive: true });
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'try-the-client', private: true, type: 'module' }));
    const install = await run('npm', [...installCommand.slice(1), '--no-audit', '--no-fund', '--prefer-offline'], {
      cwd: project,
      timeoutMs: 120_000,
    });
    expect(install.code, install.stderr).toBe(0);

    const nodeModules = join(project, 'node_modules');
    const installed = installedPackages(nodeModules);
    expect(installed).toEqual(['@animal-store/client', 'openapi-fetch', 'openapi-typescript-helpers']);
    const clientBytes = bytesUnder(join(nodeModules, '@animal-store', 'client'));
    const allBytes = installed.reduce((sum, name) => sum + bytesUnder(join(nodeModules, name)), 0);
    console.log(`client package: ${clientBytes} bytes unpacked; with its dependencies ${installed.length} packages, ${allBytes} bytes`);
    expect(clientBytes).toBeLessThan(200 * 1024);

    // What a browser loads: ES modules importing each other and openapi-fetch, nothing of Node.
    const dist = join(nodeModules, '@animal-store', 'client', 'dist');
    const modules = readdirSync(dist, { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.js'));
    expect(modules).toContain('index.js');
    for (const name of modules) {
      for (const specifier of importsOf(readFileSync(join(dist, name), 'utf8'))) {
        expect(
          specifier === 'openapi-fetch' || specifier.startsWith('./') || specifier.startsWith('../'),
          `${name} imports ${specifier}`,
        ).toBe(true);
      }
    }
    const shipped = readdirSync(join(nodeModules, '@animal-store', 'client'));
    expect(shipped.sort()).toEqual(['README.md', 'dist', 'package.json']);

    // The example, type-checked against the installed package's types, then run.
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          skipLibCheck: false,
          types: ['node'],
          typeRoots: [join(ROOT, 'node_modules', '@types')],
          outDir: 'out',
        },
        include: ['quickstart.ts'],
      }),
    );
    const typecheck = await run(bin('tsc'), ['-p', project], { cwd: project });
    expect(typecheck.code, typecheck.stdout + typecheck.stderr).toBe(0);

    const result = await runExample(join(project, 'out', 'quickstart.js'), 'Tom');
    expect(result.stdout).toMatch(/^added Rex as #\d+ \(available\)$/m);
    expect(result.stdout).toContain('available animals: 2');
    expect(result.stdout).toContain('deprecated: GET /pets/{petId} (sunset 2030-12-05)');
    // POST, one page of the list, GET: three requests of the Free plan's 60.
    expect(result.stdout).toContain('rate limit: 57 of 60 left');
    const source = readFileSync(join(CLIENT_DIR, 'examples', 'quickstart.ts'), 'utf8');
    expect(source).toContain("from '@animal-store/client'");
    expect(source).not.toMatch(/from '\.\.?\//);
  }, 180_000);

  it('works from a CommonJS project that npm init -y makes: its example type-checks, compiles to require() and runs', async () => {
    const project = join(work, 'commonjs-app');
    mkdirSync(project);
    const npmInit = await run('npm', ['init', '-y'], { cwd: project });
    expect(npmInit.code, npmInit.stderr).toBe(0);
    const manifest = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')) as { type?: string };
    expect(manifest.type ?? 'commonjs').toBe('commonjs');
    const install = await run('npm', [...installCommand.slice(1), '--no-audit', '--no-fund', '--prefer-offline'], {
      cwd: project,
      timeoutMs: 120_000,
    });
    expect(install.code, install.stderr).toBe(0);
    cpSync(join(CLIENT_DIR, 'examples', 'commonjs.cts'), join(project, 'commonjs.cts'));
    // The tsconfig.json a newcomer starts from, with Node.js's types and an output folder.
    const init = await run(bin('tsc'), ['--init'], { cwd: project });
    expect(init.code, init.stdout).toBe(0);
    const flags = ['--types', 'node', '--typeRoots', join(ROOT, 'node_modules', '@types'), '--outDir', 'out'];
    const typecheck = await run(bin('tsc'), ['-p', project, ...flags], { cwd: project });
    expect(typecheck.code, typecheck.stdout + typecheck.stderr).toBe(0);
    const compiled = readFileSync(join(project, 'out', 'commonjs.cjs'), 'utf8');
    expect(compiled).toContain('require("@animal-store/client")');

    const result = await runExample(join(project, 'out', 'commonjs.cjs'), 'Cleo');
    expect(result.stdout).toMatch(/^first animals: .*Cleo/m);
    // And from plain JavaScript, as its comment says.
    const plain = await run(process.execPath, ['-e', "console.log(typeof require('@animal-store/client').createAnimalStoreClient)"], {
      cwd: project,
    });
    expect(plain.stderr).toBe('');
    expect(plain.stdout.trim()).toBe('function');
  }, 180_000);
});
