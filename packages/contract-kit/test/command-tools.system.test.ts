/**
 * A project that has the kit but none of its commands' tools, as a production install leaves it
 * (npm ci --omit=dev): the server's entry loads and serves, init runs, and each other command
 * says in one line what to install. The kit is built and copied into the project's node_modules
 * (so that it finds only what is there), every other package linked from the repository's.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMAND_TOOLS, TOOLS_OF } from '../src/cli/tools.js';
import { inProject } from './adoption/project.js';
import { buildKit } from './linked-project.js';

const KIT = fileURLToPath(new URL('..', import.meta.url));
const MODULES = join(KIT, '..', '..', 'node_modules');
const TOOLS = new Set(Object.keys(COMMAND_TOOLS));

let dir: string;
beforeAll(async () => {
  await buildKit();
  dir = mkdtempSync(join(tmpdir(), 'contract-kit-no-tools-'));
  const modules = join(dir, 'node_modules');
  for (const name of readdirSync(MODULES)) {
    if (name.startsWith('.') || name === 'contract-kit' || TOOLS.has(name)) continue;
    if (!name.startsWith('@')) {
      mkdirSync(modules, { recursive: true });
      symlinkSync(join(MODULES, name), join(modules, name));
      continue;
    }
    mkdirSync(join(modules, name), { recursive: true });
    for (const inScope of readdirSync(join(MODULES, name)))
      if (!TOOLS.has(`${name}/${inScope}`)) symlinkSync(join(MODULES, name, inScope), join(modules, name, inScope));
  }
  for (const part of ['package.json', 'dist', 'templates', 'redocly.kit.yaml'])
    cpSync(join(KIT, part), join(modules, 'contract-kit', part), { recursive: true });
  cpSync(join(KIT, 'test', 'fixtures', 'orders-3.1.yaml'), join(dir, 'openapi.yaml'));
  writeFileSync(join(dir, 'package.json'), '{ "name": "orders" }\n');
}, 180_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const kit = (args: string[]) =>
  inProject(dir, process.execPath, [join(dir, 'node_modules', 'contract-kit', 'dist', 'cli', 'main.js'), ...args]);

describe('a project without the tools of the kit’s commands', () => {
  it('has none of them where the kit looks', () => {
    const lookup = createRequire(join(dir, 'node_modules', 'contract-kit', 'dist', 'cli', 'main.js')).resolve.paths('x') ?? [];
    for (const tool of TOOLS)
      expect(
        lookup.filter((modules) => existsSync(join(modules, tool))),
        tool,
      ).toEqual([]);
  });

  it("loads the kit's server and serves the contract with it", async () => {
    const script = `
      import { contractServer, listOperations, loadContract } from 'contract-kit';
      const contract = await loadContract('openapi.yaml');
      contractServer({ contract, handlers: {}, onWarning: () => {} });
      console.log(listOperations(contract).length + ' operations');
    `;
    const outcome = await inProject(dir, process.execPath, ['--input-type=module', '-e', script]);
    expect(outcome.code, outcome.output).toBe(0);
    expect(outcome.output).toBe('3 operations\n');
  });

  it('runs contract-kit init, which adds each tool to the devDependencies at the version the kit is tested with', async () => {
    const outcome = await kit(['init']);
    expect(outcome.code, outcome.output).toBe(0);
    const { devDependencies } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> };
    expect(devDependencies).toMatchObject(COMMAND_TOOLS);
  });

  it.each(Object.entries(TOOLS_OF))('says in one line what contract-kit %s needs installed', async (command, tools) => {
    const outcome = await kit([command]);
    expect(outcome.code).toBe(2);
    expect(outcome.output).toBe(
      `contract-kit ${command}: needs ${tools.join(' and ')}, not installed here: npm install --save-dev ${tools.map((t) => `${t}@${COMMAND_TOOLS[t]}`).join(' ')}\n`,
    );
  });
});
