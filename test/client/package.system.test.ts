import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import ts from 'typescript';
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

/** The README's "With TypeScript": its commands, and the compilerOptions it sets in the tsconfig.json of `tsc --init`. */
function typescriptGuide(): { commands: string[]; compilerOptions: Record<string, unknown> } {
  const readme = readFileSync(join(CLIENT_DIR, 'README.md'), 'utf8');
  const section = /\n## With TypeScript\n([\s\S]*?)\n## /.exec(readme)?.[1] ?? '';
  const commands = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  const json = /```json\n([\s\S]*?)```/.exec(section)?.[1] ?? '{}';
  return {
    commands: commands.split('\n').filter(Boolean),
    compilerOptions: (JSON.parse(json) as { compilerOptions?: Record<string, unknown> }).compilerOptions ?? {},
  };
}

/**
 * What a newcomer does in `project`, as the README's "With TypeScript" says: @types/node installed
 * (the version this repository uses; its tsc is the version the README names), the tsconfig.json
 * of `tsc --init`, and in it the options the README sets, and nothing else.
 */
async function typescriptAsTheReadmeSays(project: string): Promise<void> {
  const guide = typescriptGuide();
  expect(guide.commands).toEqual(['npm install -D typescript @types/node', 'npx tsc --init']);
  const root = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> };
  const types = `@types/node@${root.devDependencies['@types/node']}`;
  const install = await run('npm', ['install', '-D', types, '--no-audit', '--no-fund', '--prefer-offline'], {
    cwd: project,
    timeoutMs: 120_000,
  });
  expect(install.code, install.stderr).toBe(0);
  const init = await run(bin('tsc'), ['--init'], { cwd: project });
  expect(init.code, init.stdout).toBe(0);
  // tsc --init writes JSON with comments: read as TypeScript reads it, the README's options set.
  const path = join(project, 'tsconfig.json');
  const written = ts.parseConfigFileTextToJson(path, readFileSync(path, 'utf8'));
  expect(written.error).toBeUndefined();
  const config = written.config as { compilerOptions: Record<string, unknown> };
  writeFileSync(path, JSON.stringify({ ...config, compilerOptions: { ...config.compilerOptions, ...guide.compilerOptions } }, null, 2));
}

/** `npx tsc` in `project`, twice (a second build reads what the first wrote, unless it went to outDir), then the package's own types checked too. */
async function compile(project: string): Promise<void> {
  for (const build of ['first', 'second']) {
    const compiled = await run(bin('tsc'), [], { cwd: project });
    expect(compiled.code, `${build} tsc: ${compiled.stdout}${compiled.stderr}`).toBe(0);
  }
  const libraries = await run(bin('tsc'), ['--noEmit', '--skipLibCheck', 'false'], { cwd: project });
  expect(libraries.code, libraries.stdout + libraries.stderr).toBe(0);
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

    // The examples, compiled as the README says, against the installed package's types, then run.
    await typescriptAsTheReadmeSays(project);
    await compile(project);

    const result = await runExample(join(project, 'dist', 'quickstart.js'), 'Tom');
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
    await typescriptAsTheReadmeSays(project);
    await compile(project);
    const compiled = readFileSync(join(project, 'dist', 'commonjs.cjs'), 'utf8');
    expect(compiled).toContain('require("@animal-store/client")');

    const result = await runExample(join(project, 'dist', 'commonjs.cjs'), 'Cleo');
    expect(result.stdout).toMatch(/^first animals: .*Cleo/m);
    // And from plain JavaScript, as its comment says.
    const plain = await run(process.execPath, ['-e', "console.log(typeof require('@animal-store/client').createAnimalStoreClient)"], {
      cwd: project,
    });
    expect(plain.stderr).toBe('');
    expect(plain.stdout.trim()).toBe('function');
  }, 180_000);
});
