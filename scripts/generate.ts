/**
 * `npm run generate`: writes generated/ and packages/client/src/generated/ from openapi.yaml.
 * `npm run generate -- --check`: writes nothing, fails when either is out of date.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { parseCommandLine } from '../src/shared/command-line.js';
import { renderGenerated, renderHandlerStub, type GeneratedFile } from '../src/toolkit/codegen/generate.js';
import { loadSpec, SPEC_PATH } from '../src/contract/load-spec.js';
import { listOperations, type OperationInfo } from '../src/contract/operations.js';
import { petStorageGaps } from '../src/toolkit/codegen/pet-storage-check.js';

/** The client package, which the repository's package.json depends on (the tests call the service through it) at the contract's version. */
const CLIENT_PACKAGE = '@animal-store/client';

const HELP = `Usage: npm run generate [-- --check] [--spec FILE] [--out DIR] [--client-out DIR] [--handlers DIR]

Writes the TypeScript types (openapi-typescript) and the handler map (one handler per
operationId) into generated/, and the types, version and servers the client package needs into
packages/client/src/generated/ (the package stands alone, with its own copy of the types); the
client package's version follows the contract's info.version. Generated files are committed and never edited by
hand. For an operation without a handler file it writes a stub that answers 501
not_implemented, named in a warning when the service starts; it never overwrites an existing
handler. When the contract returns a field no store keeps, it names the field and what to write,
and writes nothing.

Options:
  --check        Write nothing; exit 1 and name the stale files when generated/ or the client
                 package's folder is not what the contract produces (npm run check uses this).
  --spec FILE    The contract to read (default: openapi.yaml).
  --out DIR      The service's folder to write (default: generated/).
  --client-out DIR
                 The client package's folder to write (default: DIR/../packages/client/src/generated/
                 for the --out DIR; its package.json is two folders up).
  --handlers DIR Where handler files live, one per operationId (default: src/service/http/handlers/).
  -h, --help     Show this help.
`;

/** Where generate reads and writes, from the command line. */
interface Folders {
  specPath: string;
  outDir: string;
  handlersDir: string;
  clientDir: string;
}

/**
 * The files that record the client's version, and whether each is behind the contract's: the
 * client package's manifest (the client is versioned with the contract it was generated from),
 * the repository's manifest (which pins the client) and npm's lock file (which records
 * the workspace's version).
 */
interface VersionFiles {
  version: string;
  clientManifest: string;
  clientManifestText: string | null;
  clientVersion: string | undefined;
  versionStale: boolean;
  rootManifest: string;
  rootManifestText: string | null;
  pinned: string | undefined;
  pinStale: boolean;
  lockPath: string;
  locked: string | undefined;
  lockStale: boolean;
}

/** Everything the contract asks of the tree: generated files, version records, handler stubs, and fields no store keeps. */
interface Generation {
  folders: Folders;
  files: GeneratedFile[];
  versions: VersionFiles;
  missingHandlers: OperationInfo[];
  storageGaps: string[];
}

const shown = (path: string) => relative(process.cwd(), path) || path;
const readIfThere = (path: string) => (existsSync(path) ? readFileSync(path, 'utf8') : null);

function readFolders(): Folders & { check: boolean } {
  const { values } = parseCommandLine(HELP, {
    check: { type: 'boolean', default: false },
    spec: { type: 'string' },
    out: { type: 'string' },
    'client-out': { type: 'string' },
    handlers: { type: 'string' },
  });
  const outDir = resolve(values.out ?? join(SPEC_PATH, '..', 'generated'));
  return {
    check: values.check,
    specPath: resolve(values.spec ?? SPEC_PATH),
    outDir,
    handlersDir: resolve(values.handlers ?? join(SPEC_PATH, '..', 'src', 'service', 'http', 'handlers')),
    clientDir: resolve(values['client-out'] ?? join(outDir, '..', 'packages', 'client', 'src', 'generated')),
  };
}

function readVersionFiles(folders: Folders, version: string): VersionFiles {
  const clientManifest = join(dirname(dirname(folders.clientDir)), 'package.json');
  const clientManifestText = readIfThere(clientManifest);
  const clientVersion = clientManifestText === null ? undefined : (JSON.parse(clientManifestText) as { version?: string }).version;
  const rootManifest = join(dirname(folders.outDir), 'package.json');
  const rootManifestText = readIfThere(rootManifest);
  const pinned =
    rootManifestText === null
      ? undefined
      : (JSON.parse(rootManifestText) as { dependencies?: Record<string, string> }).dependencies?.[CLIENT_PACKAGE];
  const lockPath = join(dirname(folders.outDir), 'package-lock.json');
  const lockText = readIfThere(lockPath);
  const locked =
    lockText === null
      ? undefined
      : (JSON.parse(lockText) as { packages?: Record<string, { version?: string }> }).packages?.['packages/client']?.version;
  return {
    version,
    clientManifest,
    clientManifestText,
    clientVersion,
    versionStale: clientManifestText !== null && clientVersion !== version,
    rootManifest,
    rootManifestText,
    pinned,
    pinStale: pinned !== undefined && pinned !== version,
    lockPath,
    locked,
    lockStale: locked !== undefined && locked !== version,
  };
}

/** Fields the contract returns that no store keeps: the gate stops here, whatever else holds. */
function reportStorageGaps(generation: Generation): number {
  for (const gap of generation.storageGaps) process.stderr.write(`${shown(generation.folders.specPath)}: ${gap}\n`);
  return generation.storageGaps.length === 0 ? 0 : 1;
}

/** Files in the generated folders that the contract does not produce. */
function extraFiles(generation: Generation): string[] {
  const expected = new Set(generation.files.map((f) => join(f.dir, f.name)));
  return [generation.folders.outDir, generation.folders.clientDir].flatMap((dir) =>
    existsSync(dir)
      ? readdirSync(dir)
          .map((n) => join(dir, n))
          .filter((path) => !expected.has(path))
      : [],
  );
}

/** `--check`: writes nothing, names what is out of date; 0 when nothing is. */
function check(generation: Generation): number {
  const { folders, versions, missingHandlers } = generation;
  const stale = generation.files.filter((f) => readIfThere(join(f.dir, f.name)) !== f.text);
  const extra = extraFiles(generation);
  const { version, versionStale, pinStale, lockStale } = versions;
  const onlyLock = stale.length === 0 && extra.length === 0 && missingHandlers.length === 0 && !versionStale && !pinStale;
  if (onlyLock && !lockStale) {
    process.stdout.write(`generated/ and ${shown(folders.clientDir)} are up to date with ${shown(folders.specPath)}.\n`);
    return reportStorageGaps(generation);
  }
  reportStorageGaps(generation);
  const say = (line: string) => process.stderr.write(`${line}\n`);
  for (const f of stale) say(`stale: ${shown(join(f.dir, f.name))}`);
  for (const path of extra) say(`not generated from the contract: ${shown(path)}`);
  if (versionStale) say(`stale: ${shown(versions.clientManifest)} has version ${String(versions.clientVersion)}, the contract ${version}`);
  if (pinStale) say(`stale: ${shown(versions.rootManifest)} depends on ${CLIENT_PACKAGE} ${versions.pinned}, the contract is ${version}`);
  if (lockStale) {
    say(
      `stale: ${shown(versions.lockPath)} records ${CLIENT_PACKAGE} ${versions.locked}, the contract is ${version} (run npm install after npm run generate)`,
    );
  }
  for (const op of missingHandlers) say(`no handler file: ${shown(join(folders.handlersDir, `${op.operationId}.ts`))}`);
  say(
    onlyLock
      ? `${shown(versions.lockPath)} is out of date with ${shown(folders.specPath)}. Run \`npm install\` and commit it.`
      : `generated/ is out of date with ${shown(folders.specPath)}. Run \`npm run generate\` and commit the result.`,
  );
  return 1;
}

/** Brings the client's version records up to the contract's (but the lock file, which npm install writes). */
function writeVersions(versions: VersionFiles): void {
  const { version, clientManifestText, rootManifestText } = versions;
  if (versions.versionStale && clientManifestText !== null) {
    writeFileSync(versions.clientManifest, clientManifestText.replace(/"version": "[^"\n]*"/, `"version": ${JSON.stringify(version)}`));
    process.stdout.write(`updated ${shown(versions.clientManifest)} (version ${version})\n`);
  }
  if (versions.pinStale && rootManifestText !== null) {
    const pin = (to: string | undefined) => `"${CLIENT_PACKAGE}": ${JSON.stringify(to)}`;
    writeFileSync(versions.rootManifest, rootManifestText.replace(pin(versions.pinned), pin(version)));
    process.stdout.write(`updated ${shown(versions.rootManifest)} (${CLIENT_PACKAGE} ${version})\n`);
  }
  if (versions.versionStale || versions.pinStale || versions.lockStale) {
    process.stdout.write(`The client's version changed: run npm install to record it in ${shown(versions.lockPath)}, and commit both.\n`);
  }
}

/**
 * Writes stubs for missing handlers, the version records and every generated file that changed;
 * nothing at all when a field has no store: the tree stays as it was, to fix the contract against.
 */
function write(generation: Generation): number {
  const { folders } = generation;
  if (reportStorageGaps(generation) !== 0) {
    process.stderr.write('Nothing was written.\n');
    return 1;
  }
  for (const dir of [folders.outDir, folders.clientDir, folders.handlersDir]) mkdirSync(dir, { recursive: true });
  for (const op of generation.missingHandlers) {
    const path = join(folders.handlersDir, `${op.operationId}.ts`);
    // 'wx' fails rather than overwrite a file that appeared meanwhile.
    writeFileSync(path, renderHandlerStub(op.operationId, op.summary), { flag: 'wx' });
    process.stdout.write(`created ${shown(path)} (stub answering 501 until you write it)\n`);
  }
  writeVersions(generation.versions);
  for (const f of generation.files) {
    const path = join(f.dir, f.name);
    const before = readIfThere(path);
    if (before === f.text) {
      process.stdout.write(`unchanged ${shown(path)}\n`);
    } else {
      writeFileSync(path, f.text);
      process.stdout.write(`${before === null ? 'created' : 'updated'} ${shown(path)}\n`);
    }
  }
  return 0;
}

async function main(): Promise<number> {
  const { check: checkOnly, ...folders } = readFolders();
  const files = await renderGenerated(folders.specPath, folders);
  const doc = loadSpec(folders.specPath);
  const generation: Generation = {
    folders,
    files,
    versions: readVersionFiles(folders, doc.info.version),
    missingHandlers: listOperations(doc).filter((op) => !existsSync(join(folders.handlersDir, `${op.operationId}.ts`))),
    storageGaps: petStorageGaps(doc),
  };
  return checkOnly ? check(generation) : write(generation);
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`generate failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
