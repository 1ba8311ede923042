/**
 * `npm run generate`: writes generated/ and packages/client/src/generated/ from openapi.yaml.
 * `npm run generate -- --check`: writes nothing, fails when either is out of date.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { parseCommandLine } from '../src/shared/command-line.js';
import { renderGenerated, renderHandlerStub } from '../src/toolkit/codegen/generate.js';
import { loadSpec, SPEC_PATH } from '../src/contract/load-spec.js';
import { listOperations } from '../src/contract/operations.js';
import { petStorageGaps } from '../src/toolkit/codegen/pet-storage-check.js';

/** The client package, which the service depends on at the contract's version. */
const CLIENT_PACKAGE = '@animal-store/client';

const HELP = `Usage: npm run generate [-- --check] [--spec FILE] [--out DIR] [--client-out DIR] [--handlers DIR]

Writes the handler map (one handler per operationId) into generated/, and the TypeScript types
(openapi-typescript), version and servers the client package needs into
packages/client/src/generated/ (the service takes its types from there); the client package's
version follows the contract's info.version. Generated files are committed and never edited by
hand. For an operation without a handler file it writes a stub that answers 501
not_implemented, named in a warning when the service starts; it never overwrites an existing
handler.

Options:
  --check        Write nothing; exit 1 and name the stale files when generated/ is not what
                 the contract produces (npm run check uses this).
  --spec FILE    The contract to read (default: openapi.yaml).
  --out DIR      The service's folder to write (default: generated/).
  --client-out DIR
                 The client package's folder to write (default: DIR/../packages/client/src/generated/
                 for the --out DIR; its package.json is two folders up).
  --handlers DIR Where handler files live, one per operationId (default: src/service/http/handlers/).
  -h, --help     Show this help.
`;

async function main(): Promise<number> {
  const { values } = parseCommandLine(HELP, {
    check: { type: 'boolean', default: false },
    spec: { type: 'string' },
    out: { type: 'string' },
    'client-out': { type: 'string' },
    handlers: { type: 'string' },
  });
  const specPath = resolve(values.spec ?? SPEC_PATH);
  const outDir = resolve(values.out ?? join(SPEC_PATH, '..', 'generated'));
  const handlersDir = resolve(values.handlers ?? join(SPEC_PATH, '..', 'src', 'service', 'http', 'handlers'));
  const clientDir = resolve(values['client-out'] ?? join(outDir, '..', 'packages', 'client', 'src', 'generated'));
  const files = await renderGenerated(specPath, { outDir, clientDir, handlersDir });
  const doc = loadSpec(specPath);
  const version = doc.info.version;
  // The client package is versioned with the contract it was generated from.
  const clientManifest = join(dirname(dirname(clientDir)), 'package.json');
  const manifestText = existsSync(clientManifest) ? readFileSync(clientManifest, 'utf8') : null;
  const manifest = manifestText === null ? null : (JSON.parse(manifestText) as { version?: string });
  const versionStale = manifest !== null && manifest.version !== version;
  // The service pins the client it depends on; npm's lock file records the workspace's version.
  const rootManifest = join(dirname(outDir), 'package.json');
  const rootText = existsSync(rootManifest) ? readFileSync(rootManifest, 'utf8') : null;
  const pinned =
    rootText === null ? undefined : (JSON.parse(rootText) as { dependencies?: Record<string, string> }).dependencies?.[CLIENT_PACKAGE];
  const pinStale = pinned !== undefined && pinned !== version;
  const lockPath = join(dirname(outDir), 'package-lock.json');
  const locked = existsSync(lockPath)
    ? (JSON.parse(readFileSync(lockPath, 'utf8')) as { packages?: Record<string, { version?: string }> }).packages?.['packages/client']
        ?.version
    : undefined;
  const lockStale = locked !== undefined && locked !== version;
  const missingHandlers = listOperations(doc).filter((op) => !existsSync(join(handlersDir, `${op.operationId}.ts`)));
  const shown = (path: string) => relative(process.cwd(), path) || path;
  const storageGaps = petStorageGaps(doc);
  /** Fields the contract returns that no store keeps: the gate stops here, whatever else holds. */
  const reportStorageGaps = (): number => {
    for (const gap of storageGaps) process.stderr.write(`${shown(specPath)}: ${gap}\n`);
    return storageGaps.length === 0 ? 0 : 1;
  };

  if (values.check) {
    const stale = files.filter((f) => {
      const path = join(f.dir, f.name);
      return !existsSync(path) || readFileSync(path, 'utf8') !== f.text;
    });
    const expected = new Set(files.map((f) => join(f.dir, f.name)));
    const extra = [outDir, clientDir].flatMap((dir) =>
      existsSync(dir)
        ? readdirSync(dir)
            .map((n) => join(dir, n))
            .filter((path) => !expected.has(path))
        : [],
    );
    if (stale.length === 0 && extra.length === 0 && missingHandlers.length === 0 && !versionStale && !pinStale && !lockStale) {
      process.stdout.write(`generated/ and ${shown(clientDir)} are up to date with ${shown(specPath)}.\n`);
      return reportStorageGaps();
    }
    reportStorageGaps();
    for (const f of stale) process.stderr.write(`stale: ${shown(join(f.dir, f.name))}\n`);
    for (const path of extra) process.stderr.write(`not generated from the contract: ${shown(path)}\n`);
    if (versionStale)
      process.stderr.write(`stale: ${shown(clientManifest)} has version ${String(manifest?.version)}, the contract ${version}\n`);
    if (pinStale)
      process.stderr.write(`stale: ${shown(rootManifest)} depends on ${CLIENT_PACKAGE} ${pinned}, the contract is ${version}\n`);
    if (lockStale)
      process.stderr.write(
        `stale: ${shown(lockPath)} records ${CLIENT_PACKAGE} ${locked}, the contract is ${version} (run npm install after npm run generate)\n`,
      );
    for (const op of missingHandlers) process.stderr.write(`no handler file: ${shown(join(handlersDir, `${op.operationId}.ts`))}\n`);
    const onlyLock = stale.length === 0 && extra.length === 0 && missingHandlers.length === 0 && !versionStale && !pinStale;
    process.stderr.write(
      onlyLock
        ? `${shown(lockPath)} is out of date with ${shown(specPath)}. Run \`npm install\` and commit it.\n`
        : `generated/ is out of date with ${shown(specPath)}. Run \`npm run generate\` and commit the result.\n`,
    );
    return 1;
  }

  mkdirSync(outDir, { recursive: true });
  mkdirSync(clientDir, { recursive: true });
  mkdirSync(handlersDir, { recursive: true });
  for (const op of missingHandlers) {
    const path = join(handlersDir, `${op.operationId}.ts`);
    // 'wx' fails rather than overwrite a file that appeared meanwhile.
    writeFileSync(path, renderHandlerStub(op.operationId, op.summary), { flag: 'wx' });
    process.stdout.write(`created ${shown(path)} (stub answering 501 until you write it)\n`);
  }
  if (versionStale && manifestText !== null) {
    writeFileSync(clientManifest, manifestText.replace(/"version": "[^"\n]*"/, `"version": ${JSON.stringify(version)}`));
    process.stdout.write(`updated ${shown(clientManifest)} (version ${version})\n`);
  }
  if (pinStale && rootText !== null) {
    writeFileSync(
      rootManifest,
      rootText.replace(`"${CLIENT_PACKAGE}": ${JSON.stringify(pinned)}`, `"${CLIENT_PACKAGE}": ${JSON.stringify(version)}`),
    );
    process.stdout.write(`updated ${shown(rootManifest)} (${CLIENT_PACKAGE} ${version})\n`);
  }
  if (versionStale || pinStale || lockStale) {
    process.stdout.write(`The client's version changed: run npm install to record it in ${shown(lockPath)}, and commit both.\n`);
  }
  for (const f of files) {
    const path = join(f.dir, f.name);
    const before = existsSync(path) ? readFileSync(path, 'utf8') : null;
    if (before === f.text) {
      process.stdout.write(`unchanged ${shown(path)}\n`);
    } else {
      writeFileSync(path, f.text);
      process.stdout.write(`${before === null ? 'created' : 'updated'} ${shown(path)}\n`);
    }
  }
  return reportStorageGaps();
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`generate failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
