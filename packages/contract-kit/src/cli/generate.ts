import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { loadContract } from '../contract/load-contract.js';
import { contractServer } from '../server/contract-server.js';
import { listOperations, type Operation } from '../contract/operations.js';
import { renderTypes } from '../codegen/render-types.js';
import { renderClient } from '../codegen/render-client.js';
import { pluginDefect, runPlugins, type GeneratePlugin } from '../codegen/plugins.js';
import type { OpenApiDocument } from '../contract/document.js';
import { CommandError, parseCommand } from './command-line.js';
import { formatForProject } from './project-format.js';
import { loadConfig } from './config.js';

export const GENERATE_HELP = `Usage: contract-kit generate [--spec FILE] [--out DIR] [--handlers DIR] [--config FILE] [--check]

Writes, from the contract, into DIR (generated/ by default; commit it, never edit it):
  openapi.ts     the contract's types (openapi-typescript): paths, webhooks, components
  operations.ts  each operation's type by the name its handler goes by
  handlers.ts    the handler map: one import per operation from the handlers folder, checked
                 against the contract with \`satisfies Handlers<Operations, Context>\`
  client.ts      a typed client of the contract (openapi-fetch): createApiClient(baseUrl), and
                 createStreams(client) for streamed answers (OpenAPI 3.2 itemSchema)
  streams.ts     what createStreams reads streams with (only for a contract with them)
and, in the handlers folder (src/handlers/ by default), a stub for each operation that has no
handler file yet: it answers 501 until you write it, and the server names it at start. An
existing file is never overwritten. The context type of handlers comes from src/context.ts
(contract-kit init writes it). Then the plugins of the project's configuration run (its
generate.plugins): their files are written, and checked, as the kit's are; a problem any of them
names stops generate before it writes anything.

Options:
  --spec FILE      The contract (default openapi.yaml); one that refers to other files is read whole.
  --out DIR        Where the generated files go (default generated).
  --handlers DIR   Where handler files live, one per operation (default src/handlers).
  --config FILE    The configuration (default: contract-kit.config.js, .mjs or .ts, if there is one).
  --check          Write nothing; exit 1 naming each file that is out of date or missing.
  -h, --help       Show this help.
`;

const header = (spec: string) => `// Written by \`contract-kit generate\` from ${spec}. Do not edit it by hand: run it again.\n`;

/** `a/b` from `from`, as an import path (`./`, `../`). */
function importPath(from: string, to: string): string {
  const path = relative(from, to).split('\\').join('/');
  return path.startsWith('.') ? path : `./${path}`;
}

/** The generated files, by path. */
async function render(
  specPath: string,
  spec: string,
  out: string,
  handlersDir: string,
): Promise<{ files: Map<string, string>; operations: Operation[]; contract: OpenApiDocument }> {
  const doc = await loadContract(specPath, spec);
  // What the server would refuse at start (a path it cannot route, an x-sunset that is no date, a
  // scheme the contract lacks) is refused here, before anything is written for it.
  contractServer({ contract: doc, label: spec, handlers: {}, onWarning: () => undefined });
  const operations = listOperations(doc, spec);
  const { openapi, operations: operationTypes } = await renderTypes(specPath, doc, header(spec));
  const toHandlers = importPath(out, handlersDir);
  const context = importPath(out, join(dirname(handlersDir), 'context.js'));
  const handlers =
    `${header(spec)}\nimport type { Handlers } from 'contract-kit';\nimport type { Operations } from './operations.js';\nimport type { Context } from '${context}';\n` +
    operations.map((op) => `import { ${op.name} } from '${toHandlers}/${op.name}.js';\n`).join('') +
    `\n/** The handler of every operation, by name; each lives in its own file. */\nexport const handlers = { ${operations.map((op) => op.name).join(', ')} } satisfies Handlers<Operations, Context>;\n`;
  const clients = renderClient(doc, operations, header(spec));
  return {
    operations,
    contract: doc,
    files: new Map([
      [join(out, 'openapi.ts'), openapi],
      [join(out, 'operations.ts'), operationTypes],
      [join(out, 'handlers.ts'), handlers],
      ...Object.entries(clients).map(([name, text]) => [join(out, name), text] as const),
    ]),
  };
}

/** The stub of an operation's handler file. */
function stub(op: Operation, file: string, out: string, handlersDir: string): string {
  const operations = importPath(handlersDir, join(out, 'operations.js'));
  const title = op.summary ? `${op.summary}: ` : '';
  return [
    "import { notImplemented, type TypedHandler } from 'contract-kit';",
    `import type { Operations } from '${operations}';`,
    "import type { Context } from '../context.js';",
    '',
    `/** ${title}${op.method.toUpperCase()} ${op.path}. Written by \`contract-kit generate\`: replace notImplemented(…) with the handler. */`,
    `export const ${op.name}: TypedHandler<Operations['${op.name}'], Context> = notImplemented('${op.name}', '${file}');`,
    '',
  ].join('\n');
}

/** The plugins the configuration lists under `generate.plugins`, each checked to be one. */
async function pluginsOf(cwd: string, file: string | undefined): Promise<readonly GeneratePlugin[]> {
  const plugins: unknown = (await loadConfig(cwd, file)).generate?.plugins ?? [];
  if (!Array.isArray(plugins)) throw new CommandError("the configuration's generate.plugins is not an array of plugins");
  (plugins as unknown[]).forEach((plugin, i) => {
    const defect = pluginDefect(plugin);
    if (defect) throw new CommandError(`the configuration's generate.plugins[${i}] ${defect}`);
  });
  return plugins as GeneratePlugin[];
}

/** `contract-kit generate`: 0 when done (or, with --check, up to date), 1 when out of date or a plugin has a problem. */
export async function generate(args: string[], cwd = process.cwd()): Promise<number> {
  const parsed = parseCommand(GENERATE_HELP, args, {
    spec: { type: 'string', default: 'openapi.yaml' },
    out: { type: 'string', default: 'generated' },
    handlers: { type: 'string', default: 'src/handlers' },
    config: { type: 'string' },
    check: { type: 'boolean', default: false },
  });
  if (!parsed) return 0;
  const { spec, check } = parsed.values;
  const out = resolve(cwd, parsed.values.out);
  const handlersDir = resolve(cwd, parsed.values.handlers);
  const shown = (path: string) => relative(cwd, path) || path;
  const plugins = await pluginsOf(cwd, parsed.values.config);
  const specPath = resolve(cwd, spec);
  const { files, operations, contract } = await render(specPath, spec, out, handlersDir);
  const input = { contract, operations, spec, specPath, cwd, out, handlers: handlersDir, files: new Map(files), check };
  const fromPlugins = await runPlugins(plugins, input);
  // A plugin's problem (a field nothing stores, say) stops everything: the tree stays as it was.
  if (fromPlugins.problems.length > 0) {
    for (const problem of fromPlugins.problems) process.stderr.write(`${problem}\n`);
    process.stderr.write(check ? `${spec} cannot be generated from as it is.\n` : 'Nothing was written.\n');
    return 1;
  }
  for (const [path, { text }] of fromPlugins.files) files.set(path, text);
  const missing = operations.filter((op) => !existsSync(join(handlersDir, `${op.name}.ts`)));
  const stale = [...files].filter(([path, text]) => !existsSync(path) || readFileSync(path, 'utf8') !== text).map(([path]) => path);
  const by = (path: string) => (fromPlugins.files.has(path) ? ` (plugin ${fromPlugins.files.get(path)!.plugin})` : '');
  if (check) {
    for (const path of stale) process.stderr.write(`out of date: ${shown(path)}${by(path)}\n`);
    for (const op of missing) process.stderr.write(`no handler file: ${shown(join(handlersDir, `${op.name}.ts`))}\n`);
    if (stale.length === 0 && missing.length === 0) {
      process.stdout.write(`${shown(out)} is up to date with ${spec}.\n`);
      return 0;
    }
    process.stderr.write(`Run \`contract-kit generate\` and commit what it writes.\n`);
    return 1;
  }
  mkdirSync(out, { recursive: true });
  mkdirSync(handlersDir, { recursive: true });
  for (const path of stale) {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, files.get(path)!);
    process.stdout.write(`wrote ${shown(path)}${by(path)}\n`);
  }
  for (const op of missing) {
    const path = join(handlersDir, `${op.name}.ts`);
    // 'wx': never overwrite a file that appeared meanwhile.
    writeFileSync(path, await formatForProject(cwd, path, stub(op, shown(path), out, handlersDir)), { flag: 'wx' });
    process.stdout.write(`wrote ${shown(path)} (a stub answering 501 until you write it)\n`);
  }
  // A handler file no operation has any more (its operation was removed or renamed) is left alone, and named.
  const names = new Set(operations.map((op) => `${op.name}.ts`));
  for (const file of readdirSync(handlersDir)
    .filter((file) => file.endsWith('.ts') && !names.has(file))
    .sort())
    process.stdout.write(
      `${shown(join(handlersDir, file))} is the handler of no operation of ${spec}: delete it, or rename it after one\n`,
    );
  process.stdout.write(`${operations.length} operations; ${files.size - stale.length} generated files were up to date.\n`);
  return 0;
}
