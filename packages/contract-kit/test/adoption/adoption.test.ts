/**
 * The adoption test (`npm run test:adoption`, in CI): the packed kit installed into an empty
 * project, as a team adopting it would, on each of the kit's fixture contracts: npm init -y,
 * install the tarball, copy in the contract, contract-kit init, npm install, generate, handlers
 * written (one answering its declared 404), typecheck, npm test, a production install without
 * the commands' tools, npm start, requests over HTTP, the mock, each stopped by SIGTERM to npm,
 * check:breaking; in one project, the README's generate plugin, its file written and checked.
 */
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMAND_TOOLS } from '../../src/cli/tools.js';
import { listOperations, loadContract } from '../../src/index.js';
import { ADOPTIONS, type Adoption } from './adoptions.js';
import { freePort, inProject, listening, signalNpm, startScript, stop } from './project.js';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));
let work: string;
let tarball: string;
const GIT_USER = ['-c', 'user.email=kit@example.com', '-c', 'user.name=kit'];

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'contract-kit-adoption-'));
  const packed = await inProject(ROOT, 'npm', ['pack', '-w', 'contract-kit', '--pack-destination', work, '--silent']);
  expect(packed.code, packed.output).toBe(0);
  tarball = join(work, packed.output.trim().split('\n').at(-1)!);
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Copies the adoption's contract into the folder `dir`. */
function copyContract(adoption: Adoption, dir: string): void {
  cpSync(join(FIXTURES, adoption.copy), join(dir, dirname(adoption.spec) === '.' ? adoption.spec : dirname(adoption.spec)), {
    recursive: true,
  });
}

/** The README's commands from an empty folder, with its contract: the kit installed, init and generate run, all committed. */
async function project(adoption: Adoption): Promise<string> {
  const dir = join(work, adoption.dir);
  copyContract(adoption, dir);
  if (adoption.config) writeFileSync(join(dir, 'contract-kit.config.mjs'), adoption.config.text);
  const steps: [string, string[]][] = [
    ['git', ['init', '-q']],
    ['npm', ['init', '-y']],
    ['npm', ['install', '--ignore-scripts', tarball]],
    ['npx', ['contract-kit', 'init', '--spec', adoption.spec]],
    ['npm', ['install']],
    ['npm', ['run', 'generate']],
    ['git', ['add', '-A']],
    ['git', [...GIT_USER, 'commit', '-qm', 'The contract, served']],
  ];
  for (const [command, args] of steps) {
    const outcome = await inProject(dir, command, args);
    expect(outcome.code, `${command} ${args.join(' ')}:\n${outcome.output}`).toBe(0);
    // npm 11 warns of the install scripts allowScripts does not cover: init's covers every one.
    expect(outcome.output, `${command} ${args.join(' ')}`).not.toContain('install-scripts');
  }
  // The .gitignore of init keeps node_modules out.
  expect((await inProject(dir, 'git', ['ls-files', 'node_modules'])).output).toBe('');
  return dir;
}

for (const adoption of ADOPTIONS) {
  describe(`a project whose contract is ${adoption.name}`, () => {
    let dir: string;
    beforeAll(async () => {
      dir = await project(adoption);
      for (const { name, source } of adoption.handlers) writeFileSync(join(dir, 'src', 'handlers', `${name}.ts`), source);
      writeFileSync(join(dir, 'src', 'security.ts'), adoption.security);
      if (adoption.errors) writeFileSync(join(dir, 'src', 'errors.ts'), adoption.errors);
    });

    it('type-checks with the handlers written, and its test passes (a handler answering its declared 404 too)', async () => {
      for (const script of ['typecheck', 'test']) {
        const outcome = await inProject(dir, 'npm', ['run', script]);
        expect(outcome.code, `npm run ${script}:\n${outcome.output}`).toBe(0);
      }
    });

    it.skipIf(!adoption.config)("writes its generate plugin's file, which npm run generate -- --check then checks", async () => {
      const { writes } = adoption.config!;
      const operations = listOperations(await loadContract(join(dir, adoption.spec)));
      expect(JSON.parse(readFileSync(join(dir, writes), 'utf8'))).toEqual(
        Object.fromEntries(operations.map((op) => [op.name, `${op.method.toUpperCase()} ${op.path}`])),
      );
      expect((await inProject(dir, 'npm', ['run', 'generate', '--', '--check'])).code).toBe(0);
      const written = readFileSync(join(dir, writes), 'utf8');
      writeFileSync(join(dir, writes), '{}\n');
      const stale = await inProject(dir, 'npm', ['run', 'generate', '--', '--check']);
      writeFileSync(join(dir, writes), written);
      expect(stale.code, stale.output).toBe(1);
      expect(stale.output).toContain(`out of date: ${writes} (plugin routes)`);
    });

    it("installs for production without the tools of the kit's commands, and serves the contract with the kit there", async () => {
      const production = join(work, `${adoption.dir}-production`);
      copyContract(adoption, production);
      for (const file of ['package.json', 'package-lock.json']) cpSync(join(dir, file), join(production, file));
      // From the project's lock, as npm ci --omit=dev installs it; npm ci itself refuses a lock that
      // lacks an optional dependency the registry could not serve (vite's Windows-only
      // napi-windows-process-start-time is missing from the registry this machine reaches).
      const installed = await inProject(production, 'npm', ['install', '--omit=dev']);
      expect(installed.code, installed.output).toBe(0);
      const packages = (await inProject(production, 'npm', ['ls', '--all', '--parseable', '--omit=dev'])).output.split('\n');
      for (const tool of [...Object.keys(COMMAND_TOOLS), 'vitest', 'tsx'])
        expect(
          packages.filter((path) => path.endsWith(`/node_modules/${tool}`)),
          `${tool}, ${installed.output}`,
        ).toEqual([]);
      // Nor Redocly: its bundler only where the contract is split into files, which init then adds.
      const { dependencies } = JSON.parse(readFileSync(join(production, 'package.json'), 'utf8')) as {
        dependencies: Record<string, string>;
      };
      const redocly = packages.filter((path) => path.includes('/node_modules/@redocly/'));
      if (dependencies['@redocly/openapi-core'] === undefined) expect(redocly).toEqual([]);
      else expect(redocly.filter((path) => /@redocly\/(cli|respect-core)$/.test(path))).toEqual([]);
      console.log(
        `${adoption.dir}: npm install --omit=dev installed ${packages.filter((path) => path.includes('/node_modules/')).length} packages`,
      );
      const script = `import { contractServer, listOperations, loadContract } from 'contract-kit';
        const contract = await loadContract(${JSON.stringify(adoption.spec)});
        contractServer({ contract, handlers: {}, onWarning: () => {} });
        console.log(listOperations(contract).length);`;
      const served = await inProject(production, process.execPath, ['--input-type=module', '-e', script]);
      expect(served.code, served.output).toBe(0);
      expect(Number(served.output)).toBeGreaterThan(0);
    });

    it('serves the contract with npm start: the handler, a stub, bad input, credentials, a public operation', async () => {
      const port = await freePort();
      const server = await startScript(dir, 'start', [], { PORT: String(port) }, /Listening on/);
      try {
        const base = `http://127.0.0.1:${port}${adoption.basePath}`;
        for (const check of adoption.requests) {
          const response = await fetch(`${base}${check.path}`, check.init);
          const text = await response.text();
          expect(response.status, `${check.what}: ${text}`).toBe(check.status);
          for (const [name, value] of Object.entries(check.headers ?? {}))
            expect(response.headers.get(name), `${check.what}: ${name}`).toBe(value);
          if (check.body) expect(JSON.parse(text), check.what).toMatchObject(check.body);
        }
        expect(server.output()).toContain(`${adoption.stub} (`);
        // Stopped as a supervisor stops it: SIGTERM to npm alone.
        expect(await signalNpm(server, 'SIGTERM'), server.output()).toEqual([]);
        expect(await listening(port)).toBe(false);
      } finally {
        await stop(server);
      }
    });

    it('passes contract-kit conform, made from the contract alone, but for the stubs, each named as such', async () => {
      const port = await freePort();
      const server = await startScript(dir, 'start', [], { PORT: String(port) }, /Listening on/);
      try {
        const credentials = adoption.credentials.flatMap((c) => ['--credential', c]);
        const url = ['--url', `http://127.0.0.1:${port}`];
        const checked = await inProject(dir, 'npm', ['run', 'conform', '--', ...url, ...credentials]);
        // Each failure: its name, the request, and one violation alone (no second "- " line).
        const failed = [...checked.output.matchAll(/^FAIL {2}(\S+): (.*)\n {6}.* breaks the contract:\n {8}- (.*)\n(?! {8}- )/gm)];
        const handlerFiles = readdirSync(join(dir, 'src', 'handlers')).map((file) => file.replace(/\.ts$/, ''));
        const written = adoption.handlers.map((h) => h.name);
        const unwritten = new Set(handlerFiles.filter((name) => !written.includes(name)));
        expect(checked.code, checked.output).toBe(1);
        expect(checked.output).not.toMatch(/^skip /m);
        // Each stub fails its valid request, with what to do as the only violation; nothing else fails.
        expect(failed.map((m) => m[1]).sort(), checked.output).toEqual([...unwritten].sort());
        expect(checked.output.match(/^FAIL /gm)?.length, checked.output).toBe(unwritten.size);
        for (const m of failed) {
          expect(m[2], checked.output).toMatch(/^a valid request/);
          expect(m[3], checked.output).toBe(`${m[1]} is not implemented yet: its handler answers 501 until it is written`);
        }
        for (const name of written) expect(checked.output).toMatch(new RegExp(`^ok {4}${name}: a valid request`, 'm'));

        // Generated requests: the handler's are answered as declared, the stubs' fail on their 501 alone.
        const generated = await inProject(dir, 'npm', [
          'run',
          'conform',
          '--',
          ...url,
          '--kinds',
          'property',
          '--runs',
          '50',
          ...credentials,
        ]);
        for (const name of written) expect(generated.output).toMatch(new RegExp(`^ok {4}${name}: 50 generated valid requests`, 'm'));
        const failedProperties = [...generated.output.matchAll(/^FAIL {2}(\S+): (.*)$/gm)];
        expect(failedProperties.map((m) => `${m[1]}: ${m[2]}`).sort(), generated.output).toEqual(
          [...unwritten].map((name) => `${name}: 50 generated valid requests are answered as the contract declares`).sort(),
        );
        for (const name of unwritten) expect(generated.output).toContain(`- ${name} is not implemented yet`);
        for (const [line] of generated.output.matchAll(/^skip .*$/gm))
          expect(line, generated.output).toMatch(/ invalid requests .*: it has no input a schema can refuse$/);
      } finally {
        await stop(server);
      }
    });

    it('serves a mock of the contract with npm run mock, at the server paths', async () => {
      const port = await freePort();
      const mock = await startScript(dir, 'mock', ['--port', String(port)], {}, /Mock of .* listening on/);
      try {
        const response = await fetch(`http://127.0.0.1:${port}${adoption.basePath}${adoption.mockPath}`);
        expect(response.status, await response.text()).toBe(200);
        // Every operation's valid request, as contract-kit conform makes it, is answered as the contract declares.
        const credentials = adoption.credentials.flatMap((c) => ['--credential', c]);
        const url = ['--url', `http://127.0.0.1:${port}`];
        const checked = await inProject(dir, 'npm', ['run', 'conform', '--', ...url, '--kinds', 'valid', ...credentials]);
        expect(checked.code, checked.output).toBe(0);
        expect(checked.output).not.toMatch(/^skip /m);
        // SIGTERM to npm stops the mock and its Prism.
        expect(await signalNpm(mock, 'SIGTERM'), mock.output()).toEqual([]);
        expect(await listening(port)).toBe(false);
      } finally {
        await stop(mock);
      }
    });

    it('flags a removed operation with npm run check:breaking', async () => {
      const contract = join(dir, adoption.spec);
      // The project's first commit holds the contract.
      const removed = adoption.removeOperation(readFileSync(contract, 'utf8'));
      expect(removed).not.toBe(readFileSync(contract, 'utf8'));
      writeFileSync(contract, removed);
      const checked = await inProject(dir, 'npm', ['run', 'check:breaking']);
      expect(checked.code, checked.output).toBe(1);
      expect(checked.output).toContain('[path-removed]');
    });
  });
}
