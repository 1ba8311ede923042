/**
 * `npm run generate`: writes generated/ from openapi.yaml.
 * `npm run generate -- --check`: writes nothing, fails when generated/ is out of date.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { parseCommandLine } from '../src/cli/parse-command-line.js';
import { renderGenerated } from '../src/codegen/generate.js';
import { SPEC_PATH } from '../src/spec/load-spec.js';

const HELP = `Usage: npm run generate [-- --check] [--spec FILE] [--out DIR]

Writes the TypeScript types (openapi-typescript) and the operation table generated from the
contract into generated/. Generated files are committed and never edited by hand.

Options:
  --check        Write nothing; exit 1 and name the stale files when generated/ is not what
                 the contract produces (npm run check uses this).
  --spec FILE    The contract to read (default: openapi.yaml).
  --out DIR      The folder to write (default: generated/).
  -h, --help     Show this help.
`;

async function main(): Promise<number> {
  const { values } = parseCommandLine(HELP, {
    check: { type: 'boolean', default: false },
    spec: { type: 'string' },
    out: { type: 'string' },
  });
  const specPath = resolve(values.spec ?? SPEC_PATH);
  const outDir = resolve(values.out ?? join(SPEC_PATH, '..', 'generated'));
  const files = await renderGenerated(specPath);
  const shown = (path: string) => relative(process.cwd(), path) || path;

  if (values.check) {
    const stale = files.filter((f) => {
      const path = join(outDir, f.name);
      return !existsSync(path) || readFileSync(path, 'utf8') !== f.text;
    });
    const expected = new Set(files.map((f) => f.name));
    const extra = existsSync(outDir) ? readdirSync(outDir).filter((n) => !expected.has(n)) : [];
    if (stale.length === 0 && extra.length === 0) {
      process.stdout.write(`generated/ is up to date with ${shown(specPath)}.\n`);
      return 0;
    }
    for (const f of stale) process.stderr.write(`stale: ${shown(join(outDir, f.name))}\n`);
    for (const n of extra) process.stderr.write(`not generated from the contract: ${shown(join(outDir, n))}\n`);
    process.stderr.write(
      `generated/ is out of date with ${shown(specPath)}. Run \`npm run generate\` and commit the result.\n`,
    );
    return 1;
  }

  mkdirSync(outDir, { recursive: true });
  for (const f of files) {
    const path = join(outDir, f.name);
    const before = existsSync(path) ? readFileSync(path, 'utf8') : null;
    if (before === f.text) {
      process.stdout.write(`unchanged ${shown(path)}\n`);
    } else {
      writeFileSync(path, f.text);
      process.stdout.write(`${before === null ? 'created' : 'updated'} ${shown(path)}\n`);
    }
  }
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`generate failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
