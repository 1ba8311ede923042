/**
 * `npm run release`: a self-contained production build in release/ (see HELP).
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { build } from 'esbuild';
import { cachePathOf } from '../src/contract/contract-cache.js';
import { releasedContracts } from '../src/contract/released-contracts.js';
import { failUsage, parseCommandLine } from '../src/shared/command-line.js';
import { PACKAGE_ROOT } from '../src/shared/package-root.js';

const HELP = `Usage: npm run release [-- --output DIR]

Builds a self-contained production release of the Animal Store into release/ (or DIR), made
from what is committed: the service and the keys CLI bundled with esbuild (ES modules; pg,
ioredis and prom-client in chunks loaded only when configured), the contract (openapi.yaml and
its parsed build/openapi.json) and the released contracts of earlier majors it serves beside it
(contracts/released/, parsed into build/contracts/released/), the rendered docs (build/docs/index.html, and its .br and .gz), and a package.json
whose one dependency is better-sqlite3 (a native module), installed there with npm ci
(production dependencies only) from a package-lock.json cut from the repository's, so its
version is the one the repository was tested with. Nothing of the development dependencies is needed to run it:

  node release/server.js        the service (--help lists its settings; docs/operators.md gives
                                the V8 flags and variables production runs it with)
  node release/keys.js --help   the keys CLI

Copy the folder anywhere (its node_modules included) and run it with Node.js 22.12+, 24 or 26.
The Dockerfile builds an image from it.

Options:
  --output DIR   Where to write the release (default: release/; a relative DIR is under the
                 repository). Emptied first, but for data/ (where the service keeps its SQLite
                 file by default); a folder that holds files and is no earlier release (it has
                 no server.js) is refused.
  -h, --help     Show this help.
`;

/** The packages the release installs instead of bundling them. */
const RELEASE_DEPENDENCIES = ['better-sqlite3'];

/** Bytes of every file under `path`, and how many files. */
function sizeOf(path: string): { bytes: number; files: number } {
  const stat = statSync(path);
  if (!stat.isDirectory()) return { bytes: stat.size, files: 1 };
  return readdirSync(path)
    .map((name) => sizeOf(join(path, name)))
    .reduce((a, b) => ({ bytes: a.bytes + b.bytes, files: a.files + b.files }), { bytes: 0, files: 0 });
}

/** What of the service's package.json the release's takes. */
interface Manifest {
  version: string;
  engines: Record<string, string>;
  dependencies: Record<string, string>;
}

const log = (text: string) => process.stderr.write(`${text}\n`);
const runNpm = (args: string[], cwd = PACKAGE_ROOT) => execFileSync('npm', args, { cwd, stdio: ['ignore', 'ignore', 'inherit'] });

/**
 * The release's entry, server.js: Node.js's compile cache first (module.enableCompileCache, in
 * NODE_COMPILE_CACHE or else the system's temporary folder), then the bundled service, so that
 * a restart reuses the code compiled from the bundle instead of parsing it again. It must be
 * enabled before the bundle loads, hence a file of its own.
 */
const ENTRY = `// The Animal Store service (npm run release). Node.js keeps what it compiles of the bundle in its
// compile cache, so that a restart skips that work; NODE_DISABLE_COMPILE_CACHE=1 turns it off.
import module from 'node:module';
module.enableCompileCache?.();
await import('./service.js');
`;

/** Empties `out`, but for data/ (the SQLite file of a release run in place, the default DATABASE_PATH, survives a rebuild), and bundles the service and the keys CLI into it. */
async function bundle(out: string): Promise<void> {
  mkdirSync(out, { recursive: true });
  for (const name of readdirSync(out)) if (name !== 'data') rmSync(join(out, name), { recursive: true, force: true });
  await build({
    entryPoints: { service: join(PACKAGE_ROOT, 'src', 'service', 'main.ts'), keys: join(PACKAGE_ROOT, 'src', 'service', 'keys', 'cli.ts') },
    outdir: out,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node22.12',
    // Installed below as a package of its own: the native driver, built for the Node.js that runs
    // it. Everything else is bundled: 112 files load faster than Express's and the validator's
    // 1,800 (the first 200 about 40 ms sooner). The validator's url.parse() calls, from the
    // bundle, would print DEP0169 but for src/service/legacy-url-parse.ts.
    external: [...RELEASE_DEPENDENCIES],
    // Bundled CommonJS dependencies call require(): give the ES modules one.
    banner: { js: "import { createRequire as __releaseRequire } from 'node:module'; const require = __releaseRequire(import.meta.url);" },
    chunkNames: 'chunks/[name]-[hash]',
    // Node.js reads, decodes and parses every byte it loads at start; names stay as written, so a
    // stack trace still names its functions.
    minifyWhitespace: true,
    legalComments: 'linked',
    logLevel: 'warning',
  });
  writeFileSync(join(out, 'server.js'), ENTRY);
}

/** Copies the contract, its parsed copy, the docs and the runtime check into `out`. */
function copyContractAndDocs(out: string): void {
  // The service finds its root by its package.json, and the contract and docs from there.
  cpSync(join(PACKAGE_ROOT, 'openapi.yaml'), join(out, 'openapi.yaml'), { preserveTimestamps: true });
  // The runtime check the service runs first (src/service/runtime-check.ts), as in the repository.
  mkdirSync(join(out, 'scripts'), { recursive: true });
  cpSync(join(PACKAGE_ROOT, 'scripts', 'check-node.cjs'), join(out, 'scripts', 'check-node.cjs'));
  mkdirSync(join(out, 'build', 'docs'), { recursive: true });
  for (const file of ['openapi.json', 'openapi.json.sha256']) cpSync(join(PACKAGE_ROOT, 'build', file), join(out, 'build', file));
  // The released contracts of earlier majors, served beside openapi.yaml, and their parsed copies.
  for (const { path } of releasedContracts()) {
    const inPackage = relative(PACKAGE_ROOT, path);
    mkdirSync(dirname(join(out, inPackage)), { recursive: true });
    cpSync(path, join(out, inPackage), { preserveTimestamps: true });
    const parsed = relative(PACKAGE_ROOT, cachePathOf(path)!);
    mkdirSync(dirname(join(out, parsed)), { recursive: true });
    for (const file of [parsed, `${parsed}.sha256`]) cpSync(join(PACKAGE_ROOT, file), join(out, file), { preserveTimestamps: true });
  }
  // Newer than the contract, so it is served as it is (there is no Redocly to render it again);
  // its compressed copies after it, so that they are not older than the page.
  for (const file of ['index.html', 'index.html.br', 'index.html.gz'])
    cpSync(join(PACKAGE_ROOT, 'build', 'docs', file), join(out, 'build', 'docs', file));
}

/** The release's package.json: the service's version and engines, and the dependencies it installs. */
function releaseManifest(manifest: Manifest) {
  return {
    name: 'animal-store-release',
    version: manifest.version,
    private: true,
    description: 'The Animal Store service, built by npm run release: node server.js, node keys.js',
    type: 'module',
    engines: manifest.engines,
    dependencies: Object.fromEntries(
      RELEASE_DEPENDENCIES.map((name) => {
        const version = manifest.dependencies[name];
        if (version === undefined) throw new Error(`package.json has no dependency ${name}`);
        return [name, version];
      }),
    ),
    // better-sqlite3 ships Node-API binaries: no install script needed.
    allowScripts: { 'better-sqlite3': false },
  };
}

/** An entry of package-lock.json's `packages`. */
interface LockEntry {
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  dev?: boolean;
  devOptional?: boolean;
  [field: string]: unknown;
}

/**
 * The release's package-lock.json: the entries of the repository's lock that the release's
 * dependencies reach, at the same places, so that `npm ci` installs in the release exactly the
 * versions the repository was tested with, nested ones included.
 */
function releaseLock(
  rootLock: { packages: Record<string, LockEntry> },
  release: { name: string; version: string; dependencies: Record<string, string> },
): string {
  const packages: Record<string, LockEntry> = {};
  // Where `name` resolves from the package installed at `from` ('' for the release itself), as Node does.
  const resolve = (from: string, name: string): string | undefined => {
    for (let dir = from; ; dir = dir.slice(0, Math.max(0, dir.lastIndexOf('/node_modules/')))) {
      const candidate = `${dir === '' ? '' : `${dir}/`}node_modules/${name}`;
      if (rootLock.packages[candidate]) return candidate;
      if (dir === '') return undefined;
    }
  };
  const visit = (from: string, names: string[], required: boolean) => {
    for (const name of names) {
      const at = resolve(from, name);
      if (at === undefined) {
        if (required) throw new Error(`package-lock.json has no ${name} for ${from || 'the release'}: run npm install`);
        continue;
      }
      if (packages[at]) continue;
      const { dev: _dev, devOptional: _devOptional, ...entry } = rootLock.packages[at]!;
      packages[at] = entry;
      const peers = Object.keys(entry.peerDependencies ?? {});
      const optionalPeer = (peer: string) => entry.peerDependenciesMeta?.[peer]?.optional === true;
      visit(at, [...Object.keys(entry.dependencies ?? {}), ...peers.filter((peer) => !optionalPeer(peer))], true);
      visit(at, [...Object.keys(entry.optionalDependencies ?? {}), ...peers.filter(optionalPeer)], false);
    }
  };
  visit('', Object.keys(release.dependencies), true);
  const sorted = Object.fromEntries(Object.entries(packages).sort(([a], [b]) => a.localeCompare(b)));
  const lock = {
    name: release.name,
    version: release.version,
    lockfileVersion: 3,
    requires: true,
    packages: { '': { name: release.name, version: release.version, dependencies: release.dependencies }, ...sorted },
  };
  return `${JSON.stringify(lock, null, 2)}\n`;
}

/** The line that says what was written, and how to run it. */
function summary(out: string): string {
  const total = sizeOf(out);
  const modules = sizeOf(join(out, 'node_modules'));
  const installed = readdirSync(join(out, 'node_modules')).filter((n) => !n.startsWith('.'));
  return (
    `Release written to ${out}: ${(total.bytes / 1048576).toFixed(1)} MiB in ${total.files} files ` +
    `(node_modules ${(modules.bytes / 1048576).toFixed(1)} MiB; ${installed.join(', ')}).\n` +
    `Run: node ${relative(process.cwd(), join(out, 'server.js')) || 'server.js'} (in production with the flags of docs/operators.md)\n`
  );
}

async function main(): Promise<void> {
  const { values } = parseCommandLine(HELP, { output: { type: 'string', default: 'release' } });
  // npm runs scripts from the package root: a relative DIR is under it, an absolute one is itself.
  const out = resolve(PACKAGE_ROOT, values.output);
  const held = existsSync(out) ? readdirSync(out).filter((name) => name !== 'data') : [];
  if (held.length > 0 && !existsSync(join(out, 'server.js')))
    failUsage(
      HELP,
      `${out} holds files (${held.slice(0, 3).join(', ')}…) and is no earlier release (it has no server.js): name an empty or new folder`,
    );
  const manifest = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as Manifest;

  log('1/4 contract and docs (npm run build, npm run docs)');
  runNpm(['run', '-s', 'build']);
  runNpm(['run', '-s', 'docs']);
  log(`2/4 bundling the service and the keys CLI into ${relative(process.cwd(), out) || out}`);
  await bundle(out);
  log('3/4 contract, docs, package.json and package-lock.json');
  copyContractAndDocs(out);
  const release = releaseManifest(manifest);
  writeFileSync(join(out, 'package.json'), `${JSON.stringify(release, null, 2)}\n`);
  const rootLock = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> };
  writeFileSync(join(out, 'package-lock.json'), releaseLock(rootLock, release));
  log(`4/4 installing ${RELEASE_DEPENDENCIES.join(' and ')} from the repository's locked versions (npm ci --omit=dev)`);
  runNpm(['ci', '--omit=dev', '--no-audit', '--no-fund', '--prefer-offline'], out);
  if (!existsSync(join(out, 'node_modules', 'better-sqlite3'))) throw new Error('better-sqlite3 was not installed into the release');
  process.stdout.write(summary(out));
}

main().catch((error: unknown) => {
  process.stderr.write(`release failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
