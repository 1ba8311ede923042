// `node scripts/build-fresh.mjs TSCONFIG OUTDIR`: compiles the TypeScript project TSCONFIG into
// an empty folder, then makes OUTDIR exactly that, so that a source removed since the last build
// (a handler, a module) leaves nothing behind. Each new file replaces the old one with a rename,
// which is atomic: a service or test running from OUTDIR meanwhile never finds a file missing
// or half written. When tsc fails, OUTDIR is left as it was. `npm run build` uses it for dist/
// and for the client package's dist/.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, rmdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';

const [project, outDirArg] = process.argv.slice(2);
if (!project || !outDirArg) {
  process.stderr.write('Usage: node scripts/build-fresh.mjs TSCONFIG OUTDIR\n');
  process.exit(2);
}
const outDir = resolve(outDirArg);
// A sibling of OUTDIR, so that source maps (paths relative to each output file) come out the same.
const staging = `${outDir}.building-${process.pid}`;

/** Every file under `dir`, as paths relative to it. */
function filesUnder(dir, base = dir) {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (error) {
    if (error.code === 'ENOENT') return [];
    throw error;
  }
  return entries.flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(path, base) : [relative(base, path)];
  });
}

/** Removes the folders under `dir` (not `dir` itself) that hold nothing. */
function removeEmptyFolders(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const path = join(dir, entry.name);
    removeEmptyFolders(path);
    if (readdirSync(path).length === 0) rmdirSync(path);
  }
}

rmSync(staging, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const compiled = spawnSync(process.execPath, [tsc, '-p', project, '--outDir', staging], { stdio: 'inherit' });
if (compiled.status !== 0) {
  rmSync(staging, { recursive: true, force: true });
  process.exit(compiled.status ?? 1);
}
const fresh = new Set(filesUnder(staging));
for (const file of fresh) {
  // A script that starts with #! is a package's command (its bin): executable, as npm made it when it linked it.
  if (file.endsWith('.js') && readFileSync(join(staging, file), 'utf8').startsWith('#!')) chmodSync(join(staging, file), 0o755);
  mkdirSync(dirname(join(outDir, file)), { recursive: true });
  renameSync(join(staging, file), join(outDir, file));
}
for (const file of filesUnder(outDir)) if (!fresh.has(file)) rmSync(join(outDir, file), { force: true });
removeEmptyFolders(outDir);
rmSync(staging, { recursive: true, force: true });
