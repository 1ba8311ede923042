import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { CommandError, parseCommand, UsageError } from './command-line.js';
import { CHANGE_CLASSES, compareContracts, type ChangeClass, type ContractChange, type ContractComparison } from './compare-contracts.js';
import { majorOrNone } from '../contract/version.js';
import { findBaseRevision, writeContractAtRevision } from './git-revision.js';

export const CHECK_BREAKING_HELP = `Usage: contract-kit check-breaking [--spec FILE] [--base REF|FILE] [--json]

Compares the contract with an earlier version and lists every change, those that can break an
existing client first (removed operations, responses or fields; narrowed types, ranges or enums;
new required inputs), then those the contract allows (values added to an enum it marks
x-extensible-enum: true), then the compatible ones. Changes are found and rated by Redocly's
diff. Exits 0 when nothing breaks or info.version's major number was raised; 1 when a breaking
change comes without a new major version; 2 on bad usage or an unreadable contract.

Options:
  --spec FILE      The contract (default openapi.yaml).
  --base REF|FILE  The earlier version: a file, or a git revision of the contract (a branch, a
                   tag, a commit). Default: the last committed version when the contract has
                   uncommitted changes, else the version before the last commit that changed it;
                   a contract split into files is taken whole (the YAML and JSON files beside
                   and below its file at that revision).
  --json           Print the comparison as JSON.
  -h, --help       Show this help.
`;

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

function report(comparison: ContractComparison): string {
  const text: string[] = [];
  for (const kind of CHANGE_CLASSES) {
    const listed = comparison.changes.filter((change) => change.class === kind);
    if (listed.length > 0) text.push(`\n${HEADINGS[kind]} (${listed.length}):`, ...listed.map(line));
  }
  if (comparison.changes.length === 0) text.push('\nNo changes.');
  const versions = `${comparison.baseVersion} → ${comparison.revisionVersion}`;
  const { breaking } = comparison;
  if (breaking.length === 0) text.push(`✔ No breaking change (info.version ${versions}).`);
  else if (comparison.majorRaised)
    text.push(`✔ ${breaking.length} breaking change(s), released as a new major version (info.version ${versions}).`);
  else {
    const major = majorOrNone(comparison.baseVersion);
    const raise =
      major === undefined
        ? `give info.version a major version number (such as 2.0.0; ${JSON.stringify(comparison.baseVersion)} has none)`
        : `raise info.version to ${major + 1}.0.0`;
    text.push(
      `✖ ${breaking.length} breaking change(s) without a new major version (info.version ${versions}).`,
      `  Undo them, make them additive, or ${raise} and serve the new version under a path of its own.`,
    );
  }
  return `${text.join('\n')}\n`;
}

/** `contract-kit check-breaking`: 0 when it passes, 1 on a breaking change, 2 when it cannot compare. */
export async function checkBreaking(args: string[], cwd = process.cwd()): Promise<number> {
  try {
    return await compare(args, cwd);
  } catch (error) {
    // A revision or a contract it cannot read: exit 2, apart from a breaking change's 1.
    if (error instanceof CommandError) throw error;
    throw new CommandError((error as Error).message, { cause: error });
  }
}

async function compare(args: string[], cwd: string): Promise<number> {
  const parsed = parseCommand(CHECK_BREAKING_HELP, args, {
    spec: { type: 'string', default: 'openapi.yaml' },
    base: { type: 'string' },
    json: { type: 'boolean', default: false },
  });
  if (!parsed) return 0;
  const { spec, base, json } = parsed.values;
  const specPath = resolve(cwd, spec);
  if (!existsSync(specPath)) throw new UsageError(`there is no contract at ${spec}`);
  const say = (text: string) => process.stdout.write(text);
  const dir = mkdtempSync(join(tmpdir(), 'contract-kit-base-'));
  try {
    let basePath: string;
    let baseLabel: string;
    if (base !== undefined && existsSync(resolve(cwd, base))) {
      basePath = resolve(cwd, base);
      baseLabel = relative(cwd, basePath) || basePath;
      if (!json) say(`Comparing ${spec} with ${baseLabel}…\n`);
    } else {
      const revision = findBaseRevision(specPath, base);
      if (!revision.found) {
        say(
          json
            ? `${JSON.stringify({ base: null, reason: revision.description, passes: true })}\n`
            : `${revision.description}\n✔ Nothing to check.\n`,
        );
        return 0;
      }
      basePath = writeContractAtRevision(specPath, revision.commit, dir);
      baseLabel = `${revision.commit.slice(0, 7)}:${spec}`;
      if (!json) say(`Comparing ${spec} with ${revision.description}…\n`);
    }
    const comparison = await compareContracts(basePath, specPath, { base: baseLabel, revision: spec });
    say(json ? `${JSON.stringify({ base: baseLabel, ...comparison }, null, 2)}\n` : report(comparison));
    return comparison.passes ? 0 : 1;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
