/** `npm run check:breaking [BASE_REF]`: lists the changes to openapi.yaml, those that can break clients first. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { failUsage, parseCommandLine } from '../src/shared/command-line.js';
import {
  CHANGE_CLASSES,
  type ChangeClass,
  compareContracts,
  type ContractChange,
  type ContractComparison,
} from '../src/toolkit/breaking/breaking-changes.js';
import { findBaseRevision, writeSpecAtRevision } from '../src/toolkit/breaking/contract-at-revision.js';
import { SPEC_PATH } from '../src/contract/load-spec.js';

const HELP = `Usage: npm run check:breaking [-- [BASE_REF] [--spec FILE] [--json]]

Compares openapi.yaml with its version at a git revision and lists every change, those that can
break an existing client first: removed operations, responses or fields, narrowed types, ranges
or enums, new required inputs. The changes are found and rated by Redocly's diff; changes the
contract itself declares compatible (new error codes) are listed apart, and the compatible ones
after them. Each change is listed in its class (breaking, allowed-by-contract, minor, patch) with
its place (the operation, or a JSON pointer outside operations), what changed (Redocly's message,
or the kind and place of a change no rule judged), the rule that rated it ("no rule" when
Redocly's default rating applied: an addition outside components is minor, anything else patch)
and the file and line.

Exits 0 when nothing breaks, or when info.version's major number was raised; exits 1 when a
breaking change comes without a new major version; exits 2 on bad usage or an unreadable
document or revision.

Arguments:
  BASE_REF     The git revision to compare with (a branch, tag or commit). Default: the last
               committed version when openapi.yaml has uncommitted changes, otherwise the
               version before the last commit that changed it.

Options:
  --spec FILE  The contract to check (default: openapi.yaml of this package).
  --json       Print the comparison as JSON instead of text: { base (the commit), baseVersion,
               revisionVersion, changes, breaking, allowed, compatible: { minor, patch },
               majorRaised, passes }. changes holds every change, in the order above, as
               { class, where, pointer, message, ruleId (null: no rule), impact, file, line,
               side ("base" for removals, else "revision"), allowedBecause (when allowed) };
               breaking and allowed are its changes of those classes, compatible counts the rest.
  -h, --help   Show this help.
`;

const { values, positionals } = parseCommandLine(
  HELP,
  { spec: { type: 'string' }, json: { type: 'boolean', default: false } },
  { allowPositionals: true },
);
if (positionals.length > 1) failUsage(HELP, `Expected at most one BASE_REF, got ${positionals.length}: ${positionals.join(' ')}`);
const specPath = resolve(values.spec ?? SPEC_PATH);
const specLabel = relative(process.cwd(), specPath) || specPath;

const HEADINGS: Record<ChangeClass, string> = {
  breaking: 'Breaking changes',
  'allowed-by-contract': 'Rated breaking by the diff, allowed by the contract',
  minor: 'Compatible changes, minor',
  patch: 'Compatible changes, patch',
};

function line(change: ContractChange): string {
  const at = change.line === undefined ? '' : `  (${change.file}:${change.line})`;
  const allowed = change.allowedBecause ? `\n      allowed: ${change.allowedBecause}` : '';
  return `  ${change.where.padEnd(22)} ${change.message} [${change.ruleId ?? 'no rule'}]${at}${allowed}`;
}

function report(comparison: ContractComparison): void {
  const { breaking, changes } = comparison;
  for (const kind of CHANGE_CLASSES) {
    const listed = changes.filter((change) => change.class === kind);
    if (listed.length > 0) process.stdout.write(`\n${HEADINGS[kind]} (${listed.length}):\n${listed.map(line).join('\n')}\n`);
  }
  if (changes.length === 0) process.stdout.write('\nNo changes.\n');
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
    else report(comparison);
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
