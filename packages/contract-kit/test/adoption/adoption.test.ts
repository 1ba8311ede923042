/**
 * The adoption test (`npm run test:adoption`, in CI): the packed kit installed into an empty
 * project, as a team adopting it would, on each of the kit's fixture contracts: npm init -y,
 * install the tarball, copy in the contract, contract-kit init, npm install, generate, a handler
 * written, typecheck, npm test, npm start, requests over HTTP, the mock, check:breaking.
 */
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADOPTIONS, type Adoption } from './adoptions.js';
import { freePort, inProject, startScript, stop } from './project.js';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));
let work: string;
let tarball: string;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'contract-kit-adoption-'));
  const packed = await inProject(ROOT, 'npm', ['pack', '-w', 'contract-kit', '--pack-destination', work, '--silent']);
  expect(packed.code, packed.output).toBe(0);
  tarball = join(work, packed.output.trim().split('\n').at(-1)!);
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A project with the contract of `adoption` and nothing else, the kit installed, init and generate run. */
async function project(adoption: Adoption): Promise<string> {
  const dir = join(work, adoption.dir);
  cpSync(join(FIXTURES, adoption.copy), join(dir, dirname(adoption.spec) === '.' ? adoption.spec : dirname(adoption.spec)), {
    recursive: true,
  });
  const steps: [string, string[]][] = [
    ['npm', ['init', '-y']],
    ['npm', ['install', tarball]],
    ['npx', ['contract-kit', 'init', '--spec', adoption.spec]],
    ['npm', ['install']],
    ['npm', ['run', 'generate']],
  ];
  for (const [command, args] of steps) {
    const outcome = await inProject(dir, command, args);
    expect(outcome.code, `${command} ${args.join(' ')}:\n${outcome.output}`).toBe(0);
  }
  return dir;
}

for (const adoption of ADOPTIONS) {
  describe(`a project whose contract is ${adoption.name}`, () => {
    let dir: string;
    beforeAll(async () => {
      dir = await project(adoption);
      writeFileSync(join(dir, 'src', 'handlers', `${adoption.handler.name}.ts`), adoption.handler.source);
      writeFileSync(join(dir, 'src', 'security.ts'), adoption.security);
      if (adoption.errors) writeFileSync(join(dir, 'src', 'errors.ts'), adoption.errors);
    });

    it('type-checks with the handler written, and its test passes', async () => {
      for (const script of ['typecheck', 'test']) {
        const outcome = await inProject(dir, 'npm', ['run', script]);
        expect(outcome.code, `npm run ${script}:\n${outcome.output}`).toBe(0);
      }
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
        const unwritten = new Set(handlerFiles.filter((name) => name !== adoption.handler.name));
        expect(checked.code, checked.output).toBe(1);
        expect(checked.output).not.toMatch(/^skip /m);
        // Each stub fails its valid request, with what to do as the only violation; nothing else fails.
        expect(failed.map((m) => m[1]).sort(), checked.output).toEqual([...unwritten].sort());
        expect(checked.output.match(/^FAIL /gm)?.length, checked.output).toBe(unwritten.size);
        for (const m of failed) {
          expect(m[2], checked.output).toMatch(/^a valid request/);
          expect(m[3], checked.output).toBe(`${m[1]} is not implemented yet: its handler answers 501 until it is written`);
        }
        expect(checked.output).toMatch(new RegExp(`^ok {4}${adoption.handler.name}: a valid request`, 'm'));

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
        expect(generated.output).toMatch(new RegExp(`^ok {4}${adoption.handler.name}: 50 generated valid requests`, 'm'));
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
      const mock = await startScript(dir, 'mock', ['--port', String(port)], {}, /Prism is listening/);
      try {
        const response = await fetch(`http://127.0.0.1:${port}${adoption.basePath}${adoption.mockPath}`);
        expect(response.status, await response.text()).toBe(200);
        // Every operation's valid request, as contract-kit conform makes it, is answered as the contract declares.
        const credentials = adoption.credentials.flatMap((c) => ['--credential', c]);
        const url = ['--url', `http://127.0.0.1:${port}`];
        const checked = await inProject(dir, 'npm', ['run', 'conform', '--', ...url, '--kinds', 'valid', ...credentials]);
        expect(checked.code, checked.output).toBe(0);
        expect(checked.output).not.toMatch(/^skip /m);
      } finally {
        await stop(mock);
      }
    });

    it('flags a removed operation with npm run check:breaking', async () => {
      const contract = join(dir, adoption.spec);
      const git = (...args: string[]) => inProject(dir, 'git', ['-c', 'user.email=kit@example.com', '-c', 'user.name=kit', ...args]);
      await git('init', '-q');
      await git('add', '-A');
      await git('commit', '-qm', 'the contract');
      const removed = adoption.removeOperation(readFileSync(contract, 'utf8'));
      expect(removed).not.toBe(readFileSync(contract, 'utf8'));
      writeFileSync(contract, removed);
      const checked = await inProject(dir, 'npm', ['run', 'check:breaking']);
      expect(checked.code, checked.output).toBe(1);
      expect(checked.output).toContain('[path-removed]');
    });
  });
}
