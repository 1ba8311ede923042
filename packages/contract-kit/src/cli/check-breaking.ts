import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { CommandError, parseCommand, UsageError } from './command-line.js';
import { compareContracts, type ContractComparison } from './compare-contracts.js';
import { loadConfig } from './config.js';
import { loadContract } from '../contract/load-contract.js';
import { majorOf } from '../contract/version.js';
import { report } from './breaking-report.js';
import { checkEarlierMajors, earlierScheduledEnds } from './earlier-majors.js';
import { findBaseRevision, writeContractAtRevision } from './git-revision.js';
import { lastReleased, recordRelease, scheduledEndProblems } from './released-contracts.js';

export const CHECK_BREAKING_HELP = `Usage: contract-kit check-breaking [--spec FILE] [--base REF|FILE] [--released DIR [--record]] [--json]

Compares the contract with an earlier version and lists every change, those that can break an
existing client first (removed operations, responses or fields; narrowed types, ranges or enums;
new required inputs), then those the contract allows (values added to an enum it marks
x-extensible-enum: true), then the compatible ones. Changes are found and rated by Redocly's
diff. Each is listed with every operation it affects (or a JSON pointer outside operations), the
rule that rated it ("no rule": Redocly's default rating) and its file and line.

The earlier version: --base when given; else, with --released DIR, the released contract of the
contract's major (DIR/<major>.x.yaml, or the highest major below it), a file committed with the
repository so that every clone has it (CI's too, where tags may not be fetched); else the last
committed version when the contract has uncommitted changes, or the version before the last
commit that changed it.

With --released, each earlier major still served beside the contract (a file of DIR below its
major) is compared too, with its own last committed version: its clients are promised it as
well, so any breaking change to it fails, whatever its version says.

A contract that schedules its end in its info (info.x-sunset: the kit's server then answers with
Deprecation and Sunset, and 410 once it has passed) must say when the end was announced
(info.x-deprecated-at), else every answer would say Deprecation: @0. This holds the contract and
each served earlier major.

Exits 0 when nothing breaks or info.version's major number was raised; 1 when a breaking change
comes without a new major version, breaks a served earlier major, or a sunset is not announced;
2 on bad usage or an unreadable contract or revision.

Options:
  --spec FILE      The contract (default openapi.yaml).
  --base REF|FILE  The earlier version: a file, or a git revision of the contract (a branch, a
                   tag, a commit); a contract split into files is taken whole (the YAML and JSON
                   files beside and below its file at that revision). Earlier majors are not
                   checked then.
  --released DIR   The folder of released contracts, <major>.x.yaml each (default: the
                   configuration's checkBreaking.released).
  --record         Once the comparison passes, write the contract as the released one of its
                   major (DIR/<major>.x.yaml), to commit with the release. The first record of a
                   contract released before: --record --base HEAD.
  --json           Print the comparison as JSON: { base, baseVersion, revisionVersion, changes,
                   breaking, allowed, compatible: { minor, patch }, majorRaised, passes }, with
                   previousVersions (each earlier major's comparison, its file and base commit)
                   when one is served, and scheduledEnds (one sentence each) when a sunset is not announced.
  --config FILE    The configuration (default contract-kit.config.{js,mjs,ts}): its checkBreaking
                   section gives spec and released.
  -h, --help       Show this help.
`;

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

/** The version compared with: its file, its label in the report, and how the report introduces it. */
type Base = { found: true; path: string; label: string; description: string } | { found: false; description: string };

/** --base's file or revision; else the last released contract of the contract's major; else git's last version. */
function findBase(o: {
  specPath: string;
  spec: string;
  base?: string;
  releasedDir?: string;
  major?: number;
  cwd: string;
  scratch: string;
}): Base {
  if (o.base !== undefined && existsSync(resolve(o.cwd, o.base))) {
    const label = relative(o.cwd, resolve(o.cwd, o.base)) || resolve(o.cwd, o.base);
    return { found: true, path: resolve(o.cwd, o.base), label, description: label };
  }
  const released =
    o.base === undefined && o.releasedDir !== undefined && o.major !== undefined ? lastReleased(o.releasedDir, o.major) : undefined;
  if (released) {
    const label = relative(o.cwd, released.path) || released.path;
    return { found: true, path: released.path, label, description: `the last released contract, ${label}` };
  }
  const revision = findBaseRevision(o.specPath, o.base);
  if (!revision.found) return revision;
  const path = writeContractAtRevision(o.specPath, revision.commit, join(o.scratch, 'base'));
  return { found: true, path, label: `${revision.commit.slice(0, 7)}:${o.spec}`, description: revision.description };
}

async function compare(args: string[], cwd: string): Promise<number> {
  const parsed = parseCommand(CHECK_BREAKING_HELP, args, {
    spec: { type: 'string' },
    base: { type: 'string' },
    released: { type: 'string' },
    record: { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
    config: { type: 'string' },
  });
  if (!parsed) return 0;
  const { base, json, record } = parsed.values;
  const config = (await loadConfig(cwd, parsed.values.config)).checkBreaking ?? {};
  const spec = parsed.values.spec ?? config.spec ?? 'openapi.yaml';
  const released = parsed.values.released ?? config.released;
  const specPath = resolve(cwd, spec);
  if (!existsSync(specPath)) throw new UsageError(`there is no contract at ${spec}`);
  if (record && released === undefined) throw new UsageError('--record writes into the folder of released contracts: give --released DIR');
  const releasedDir = released === undefined ? undefined : resolve(cwd, released);
  const contract = await loadContract(specPath, spec);
  // Released contracts are kept by major: the contract needs one to be matched with its own.
  const major = releasedDir === undefined ? undefined : majorOf(contract.info.version, spec);
  const say = json ? () => {} : (text: string) => void process.stdout.write(text);
  const scratch = mkdtempSync(join(tmpdir(), 'contract-kit-base-'));
  try {
    const found = findBase({ specPath, spec, base, releasedDir, major, cwd, scratch });
    let comparison: ContractComparison | undefined;
    if (!found.found) say(`${found.description}\n✔ Nothing to check.\n`);
    else {
      say(`Comparing ${spec} with ${found.description}…\n`);
      comparison = await compareContracts(found.path, specPath, { base: found.label, revision: spec });
      say(report(comparison));
    }
    const served = releasedDir !== undefined && major !== undefined && base === undefined;
    const previousVersions = served ? await checkEarlierMajors(releasedDir, major, { cwd, scratch, say }) : [];
    const ends = [
      ...scheduledEndProblems(contract, spec),
      ...(releasedDir !== undefined && major !== undefined ? await earlierScheduledEnds(releasedDir, major, cwd) : []),
    ];
    for (const problem of ends) say(`\n✖ ${problem}\n`);
    const passes = (comparison?.passes ?? true) && previousVersions.every((one) => one.passes) && ends.length === 0;
    if (json) {
      const main = found.found ? { base: found.label, ...comparison } : { base: null, reason: found.description, passes: true };
      const more = { ...(previousVersions.length > 0 ? { previousVersions } : {}), ...(ends.length > 0 ? { scheduledEnds: ends } : {}) };
      process.stdout.write(`${JSON.stringify({ ...main, ...more, ...(found.found ? {} : { passes }) }, null, 2)}\n`);
    }
    if (record && releasedDir !== undefined && major !== undefined) {
      if (comparison?.passes ?? true) {
        const file = relative(cwd, recordRelease(releasedDir, major, specPath));
        // Beside --json, on stderr: stdout stays one JSON document.
        (json ? process.stderr : process.stdout).write(
          `Recorded ${spec} (info.version ${contract.info.version}) as the released contract of major ${major}: ${file}; commit it.\n`,
        );
      } else process.stderr.write(`Not recorded: ${spec} breaks what was released without a new major version.\n`);
    }
    return passes ? 0 : 1;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
