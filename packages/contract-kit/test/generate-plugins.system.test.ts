import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listOperations, loadContract } from '../src/index.js';
import { run } from './run-cli.js';

/**
 * A plugin as a project writes one in contract-kit.config.mjs: each operation's route, as JSON,
 * and a problem for any operation whose name the project's marker file lists.
 */
const CONFIG = `import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const routes = {
  name: 'routes',
  run: ({ operations, out, cwd }) => ({
    files: { [join(out, 'routes.json')]: JSON.stringify(Object.fromEntries(operations.map((op) => [op.name, op.method + ' ' + op.path])), null, 2) + '\\n' },
  }),
};
const gate = {
  name: 'gate',
  run: ({ operations, cwd }) => {
    const refused = existsSync(join(cwd, 'refused.txt')) ? readFileSync(join(cwd, 'refused.txt'), 'utf8').trim() : undefined;
    return { problems: operations.filter((op) => op.name === refused).map((op) => op.name + ' is refused here') };
  },
};
export default { generate: { plugins: [routes, gate] } };
`;

/** The example configuration of the README's "Generate plugins". */
const README_EXAMPLE = /## Generate plugins[\s\S]*?```js\n([\s\S]*?)```/;

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'contract-kit-plugins-'));
  writeFileSync(join(dir, 'openapi.yaml'), readFileSync(fileURLToPath(new URL('./fixtures/rail-3.1.yaml', import.meta.url))));
  writeFileSync(join(dir, 'contract-kit.config.mjs'), CONFIG);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** What the routes plugin is to write for the contract in `dir`, from the kit's own reading of it. */
async function expectedRoutes(): Promise<string> {
  const operations = listOperations(await loadContract(join(dir, 'openapi.yaml'), 'openapi.yaml'), 'openapi.yaml');
  return `${JSON.stringify(Object.fromEntries(operations.map((op) => [op.name, `${op.method} ${op.path}`])), null, 2)}\n`;
}

// Each test runs the command line up to five times, each a process that loads the kit from its sources.
describe('contract-kit generate with plugins', { timeout: 120_000 }, () => {
  it("writes a plugin's files with the kit's, and --check passes once they are written", async () => {
    const generated = await run(['generate'], dir);
    expect(generated.code, generated.stderr).toBe(0);
    expect(generated.stdout).toContain('wrote generated/routes.json (plugin routes)');
    expect(readFileSync(join(dir, 'generated', 'routes.json'), 'utf8')).toBe(await expectedRoutes());
    const checked = await run(['generate', '--check'], dir);
    expect(checked.code, checked.stderr).toBe(0);
  });

  it("names a plugin's file --check finds out of date, edited by hand or behind the contract", async () => {
    await run(['generate'], dir);
    const routes = join(dir, 'generated', 'routes.json');
    writeFileSync(routes, '{}\n');
    const edited = await run(['generate', '--check'], dir);
    expect(edited.code).toBe(1);
    expect(edited.stderr).toContain('out of date: generated/routes.json (plugin routes)');
    expect(readFileSync(routes, 'utf8')).toBe('{}\n');
    await run(['generate'], dir);
    const contract = join(dir, 'openapi.yaml');
    writeFileSync(contract, readFileSync(contract, 'utf8').replace('operationId: create-booking', 'operationId: book'));
    const behind = await run(['generate', '--check'], dir);
    expect(behind.code).toBe(1);
    expect(behind.stderr).toContain('out of date: generated/routes.json (plugin routes)');
    expect((await run(['generate'], dir)).code).toBe(0);
    expect(readFileSync(routes, 'utf8')).toBe(await expectedRoutes());
  });

  it('writes nothing, not even a stub, when a plugin names a problem, and exits 1 naming the plugin and the problem', async () => {
    const [first] = listOperations(await loadContract(join(dir, 'openapi.yaml'), 'openapi.yaml'), 'openapi.yaml');
    writeFileSync(join(dir, 'refused.txt'), first!.name);
    const refused = await run(['generate'], dir);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(`plugin gate: ${first!.name} is refused here\nNothing was written.\n`);
    expect(existsSync(join(dir, 'generated'))).toBe(false);
    expect(existsSync(join(dir, 'src'))).toBe(false);
    const checked = await run(['generate', '--check'], dir);
    expect(checked.code).toBe(1);
    expect(checked.stderr).toContain(`plugin gate: ${first!.name} is refused here`);
  });

  it('reads the configuration --config names, and refuses one whose plugin is not one', async () => {
    writeFileSync(join(dir, 'other.config.mjs'), "export default { generate: { plugins: [{ name: 'broken' }] } };\n");
    const refused = await run(['generate', '--config', 'other.config.mjs'], dir);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe("contract-kit generate: the configuration's generate.plugins[0] (broken) has no run(input) function\n");
    const missing = await run(['generate', '--config', 'nowhere.mjs'], dir);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('the configuration nowhere.mjs does not exist');
    expect(existsSync(join(dir, 'generated'))).toBe(false);
  });

  it("runs the README's example plugin as written", async () => {
    const readme = readFileSync(fileURLToPath(new URL('../README.md', import.meta.url)), 'utf8');
    writeFileSync(join(dir, 'contract-kit.config.mjs'), README_EXAMPLE.exec(readme)![1]!);
    const generated = await run(['generate'], dir);
    expect(generated.code, generated.stderr).toBe(0);
    const operations = listOperations(await loadContract(join(dir, 'openapi.yaml'), 'openapi.yaml'), 'openapi.yaml');
    expect(JSON.parse(readFileSync(join(dir, 'generated', 'routes.json'), 'utf8'))).toEqual(
      Object.fromEntries(operations.map((op) => [op.name, `${op.method.toUpperCase()} ${op.path}`])),
    );
  });

  it('names a plugin that throws, or writes a file the kit writes, as its problem', async () => {
    writeFileSync(
      join(dir, 'contract-kit.config.mjs'),
      `export default { generate: { plugins: [
  { name: 'thrower', run: () => { throw new Error('no network here'); } },
  { name: 'clobber', run: ({ out }) => ({ files: { [out + '/openapi.ts']: '' } }) },
] } };
`,
    );
    const failed = await run(['generate'], dir);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toBe(
      'plugin thrower: failed: no network here\nplugin clobber: generated/openapi.ts is a file the kit writes\nNothing was written.\n',
    );
  });
});
