/** `npm run check:breaking [BASE_REF]`: lists the changes to openapi.yaml that can break clients. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { failUsage, parseCommandLine } from '../src/cli/parse-command-line.js';
import { compareContracts, type ContractChange, type ContractComparison } from '../src/spec/breaking-changes.js';
import { findBaseRevision, writeSpecAtRevision } from '../src/spec/contract-at-revision.js';
import { SPEC_PATH } from '../src/spec/load-spec.js';

const HELP = `Usage: npm run check:breaking [-- [BASE_REF] [--spec FILE] [--json]]

Compares openapi.yaml with its version at a git revision and lists every change that can break
an existing client: removed operations, responses or fields, narrowed types, ranges or enums,
new required inputs. The changes are found and rated by Redocly's diff; changes the contract
itself declares compatible (new error codes) are listed apart.

Exits 0 when nothing breaks, or when info.version's major number was raised; exits 1 when a
breaking change comes without a new major version; exits 2 on bad usage or an unreadable
document or revision.

Arguments:
  BASE_REF     The git revision to compare with (a branch, tag or commit). Default: the last
               committed version when openapi.yaml has uncommitted changes, otherwise the
               version before the last commit that changed it.

Options:
  --spec FILE  The contract to check (default: openapi.yaml of this package).
  --json       Print the comparison as JSON instead of text.
  -h, --help   Show this help.
`;

const { values, positionals } = parseCommandLine(HELP, { spec: { type: 'string' }, json: { type: 'boolean', default: false } }, { allowPositionals: true });
if (positionals.length > 1) failUsage(HELP, `Expected at most one BASE_REF, got ${positionals.length}: ${positionals.join(' ')}`);
const specPath = resolve(values.spec ?? SPEC_PATH);
const specLabel = relative(process.cwd(), specPath) || specPath;

function line(change: ContractChange, baseLabel: string): string {
  const at = change.line === undefined ? '' : `  (${change.side === 'base' ? baseLabel : specLabel}:${change.line})`;
  return `  ${change.where.padEnd(22)} ${change.message} [${change.ruleId}]${at}`;
}

function report(comparison: ContractComparison, baseLabel: string): void {
  const { breaking, allowed, compatible } = comparison;
  if (breaking.length > 0) {
    process.stdout.write(`\nBreaking changes (${breaking.length}):\n${breaking.map((c) => line(c, baseLabel)).join('\n')}\n`);
  }
  if (allowed.length > 0) {
    process.stdout.write(
      `\nRated breaking by the diff, allowed by the contract (${allowed.length}):\n${allowed.map((c) => `${line(c, baseLabel)}\n      allowed: ${c.allowedBecause}`).join('\n')}\n`,
    );
  }
  process.stdout.write(`\nCompatible changes: ${compatible.minor} minor, ${compatible.patch} patch.\n`);
  const versions = `${comparison.baseVersion} → ${comparison.revisionVersion}`;
  if (breaking.length === 0) {
    process.stdout.write(`✔ No breaking change (info.version ${versions}).\n`);
  } else if (comparison.majorRaised) {
    process.stdout.write(`✔ ${breaking.length} breaking change(s), released as a new major version (info.version ${versions}).\n`);
  } else {
    const next = `${Number(comparison.baseVersion.split('.')[0]) + 1}.0.0`;
    process.stdout.write(
      `✖ ${breaking.length} breaking change(s) without a new major version (info.version ${versions}).\n` +
        `  Undo them, make them additive, or raise info.version to ${next} and publish the contract under a new version segment.\n`,
    );
  }
}

async function main(): Promise<number> {
  const base = findBaseRevision(specPath, positionals[0]);
  if (!base.found) {
    if (values.json) process.stdout.write(`${JSON.stringify({ base: null, reason: base.description, passes: true })}\n`);
    else process.stdout.write(`${base.description}\n✔ Nothing to check.\n`);
    return 0;
  }
  const dir = mkdtempSync(join(tmpdir(), 'animal-store-base-'));
  try {
    const basePath = join(dir, 'openapi.yaml');
    writeSpecAtRevision(specPath, base.commit, basePath);
    const baseLabel = `${base.commit.slice(0, 7)}:${specLabel}`;
    if (!values.json) process.stdout.write(`Comparing ${specLabel} with ${base.description}…\n`);
    const comparison = await compareContracts(basePath, specPath, { base: baseLabel, revision: specLabel });
    if (values.json) process.stdout.write(`${JSON.stringify({ base: base.commit, ...comparison }, null, 2)}\n`);
    else report(comparison, baseLabel);
    return comparison.passes ? 0 : 1;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`check:breaking: ${(error as Error).message}\n`);
    process.exit(2);
  },
);
