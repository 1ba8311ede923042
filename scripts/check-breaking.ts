/** `npm run check:breaking [BASE_REF]`: lists the changes to openapi.yaml since its last release, those that can break clients first. */
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
  majorOf,
} from 'contract-kit/breaking';
import { findBaseRevision, writeSpecAtRevision } from '../src/toolkit/breaking/contract-at-revision.js';
import { lastReleased, recordRelease } from '../src/toolkit/breaking/released-contract.js';
import { releasedContracts } from '../src/contract/released-contracts.js';
import { loadSpec, SPEC_PATH } from '../src/contract/load-spec.js';

const HELP = `Usage: npm run check:breaking [-- [BASE_REF] [--spec FILE] [--json] [--record]]

Compares openapi.yaml with the last released contract (or with its version at a git revision)
and lists every change, those that can break an existing client first: removed operations,
responses or fields, narrowed types, ranges or enums, new required inputs. npm run check runs
it. The changes are found and rated by Redocly's diff; changes the contract itself declares
compatible (new error codes) are listed apart, and the compatible ones after them. Each change
is listed in its class (breaking, allowed-by-contract, minor, patch) with every operation it
affects (or a JSON pointer outside operations), what changed (Redocly's message, or the kind
and place of a change no rule judged), the rule that rated it ("no rule" when Redocly's default
rating applied: an addition outside components is minor, anything else patch) and the file and
line.

The last released contract is contracts/released/<major>.x.yaml beside openapi.yaml, of the
highest major up to openapi.yaml's own: committed with the repository, so every clone has it
(CI's too, where HEAD is the commit under test and tags may not be fetched); --record writes
it. A project that has recorded none is compared with git instead: with the last committed
version when openapi.yaml has uncommitted changes, otherwise with the version before the last
commit that changed it.

Each earlier major version the service still serves beside it (contracts/released/<major>.x.yaml
below openapi.yaml's major) is compared too, with its own last committed version (or, when
committed unchanged, the one before its last change): its clients are promised it as well.

Exits 0 when nothing breaks, or when info.version's major number was raised; exits 1 when a
breaking change comes without a new major version, or breaks a served earlier major version; exits 2 on bad usage or an unreadable
document or revision.

Arguments:
  BASE_REF     A git revision (a branch, tag or commit) to compare with instead.

Options:
  --spec FILE  The contract to check (default: openapi.yaml of this package).
  --record     Once the comparison passes, record the contract as the released one of its major
               (contracts/released/<major>.x.yaml), to commit with the release. The first
               record of a contract released before: --record HEAD.
  --json       Print the comparison as JSON instead of text: { base (the released contract's
               file, or the commit), baseVersion, revisionVersion, changes, breaking, allowed,
               compatible: { minor, patch }, majorRaised, passes }. changes holds every change,
               in the order above, as { class, where (the operation Redocly reported it in),
               operations (every one it affects), pointer, message, ruleId (null: no rule),
               impact, file, line, side ("base" for removals, else "revision"), allowedBecause
               (when allowed) }; breaking and allowed are its changes of those classes,
               compatible counts the rest; previousVersions, when an earlier major is served,
               holds each one's comparison the same way, with its file and base commit.
  -h, --help   Show this help.
`;

const { values, positionals } = parseCommandLine(
  HELP,
  { spec: { type: 'string' }, json: { type: 'boolean', default: false }, record: { type: 'boolean', default: false } },
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
  return `  ${change.operations.join(', ').padEnd(22)} ${change.message} [${change.ruleId ?? 'no rule'}]${at}${allowed}`;
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
        `  Undo them, make them additive, or raise info.version to ${next} (docs/designers.md, "A new major version", says what that means for clients).\n`,
    );
  }
}

/** The contract to compare with: a file, its label in the report, and what the JSON calls it. */
type Base = { found: true; path: string; label: string; id: string; description: string } | { found: false; description: string };

function findBase(major: number, scratch: string): Base {
  const released = positionals[0] === undefined ? lastReleased(specPath, major) : undefined;
  if (released) {
    const label = relative(process.cwd(), released) || released;
    return { found: true, path: released, label, id: label, description: `the last released contract, ${label}` };
  }
  const base = findBaseRevision(specPath, positionals[0]);
  if (!base.found) return base;
  const path = join(scratch, 'openapi.yaml');
  writeSpecAtRevision(specPath, base.commit, path);
  return { found: true, path, label: `${base.commit.slice(0, 7)}:${specLabel}`, id: base.commit, description: base.description };
}

function record(major: number, version: string): void {
  const file = relative(process.cwd(), recordRelease(specPath, major));
  // Beside --json, on stderr: stdout stays one JSON document.
  (values.json ? process.stderr : process.stdout).write(
    `Recorded ${specLabel} (info.version ${version}) as the released contract of major ${major}: ${file}; commit it.\n`,
  );
}

/**
 * Each earlier major version the service still serves (contracts/released/<major>.x.yaml below
 * openapi.yaml's major) against its own last committed version: its clients are promised it
 * too, and no new major can be raised for it.
 */
async function checkPreviousVersions(major: number, scratch: string): Promise<(ContractComparison & { file: string; base: string })[]> {
  const checked = [];
  for (const released of releasedContracts(specPath).filter((r) => r.major < major)) {
    const file = relative(process.cwd(), released.path) || released.path;
    const base = findBaseRevision(released.path);
    if (!base.found) {
      if (!values.json) process.stdout.write(`\n${file}: ${base.description}\n✔ Nothing to check.\n`);
      continue;
    }
    const path = join(scratch, `${released.major}.x.yaml`);
    writeSpecAtRevision(released.path, base.commit, path);
    if (!values.json) process.stdout.write(`\nComparing ${file} (the ${released.major}.x line, still served) with ${base.description}…\n`);
    const comparison = await compareContracts(path, released.path, { base: `${base.commit.slice(0, 7)}:${file}`, revision: file });
    // A released line keeps its major: what breaks its clients is refused whatever its version says.
    const kept = { ...comparison, majorRaised: false, passes: comparison.breaking.length === 0 };
    if (!values.json) report(kept);
    checked.push({ ...kept, file, base: base.commit });
  }
  return checked;
}

async function main(): Promise<number> {
  const { version } = loadSpec(specPath, specLabel).info;
  const major = majorOf(version, specLabel);
  const scratch = mkdtempSync(join(tmpdir(), 'animal-store-base-'));
  try {
    const base = findBase(major, scratch);
    let comparison: ContractComparison | undefined;
    if (!base.found) {
      if (!values.json) process.stdout.write(`${base.description}\n✔ Nothing to check.\n`);
    } else {
      if (!values.json) process.stdout.write(`Comparing ${specLabel} with ${base.description}…\n`);
      comparison = await compareContracts(base.path, specPath, { base: base.label, revision: specLabel });
      if (!values.json) report(comparison);
    }
    const previous = positionals[0] === undefined ? await checkPreviousVersions(major, scratch) : [];
    const passes = (comparison?.passes ?? true) && previous.every((line) => line.passes);
    if (values.json) {
      const main = base.found ? { base: base.id, ...comparison } : { base: null, reason: base.description, passes: true };
      process.stdout.write(`${JSON.stringify({ ...main, ...(previous.length > 0 ? { previousVersions: previous } : {}) }, null, 2)}\n`);
    }
    if (values.record && (comparison?.passes ?? true)) record(major, version);
    else if (values.record) process.stderr.write(`Not recorded: ${specLabel} breaks what was released without a new major version.\n`);
    return passes ? 0 : 1;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`check:breaking: ${(error as Error).message}\n`);
    process.exit(2);
  },
);
