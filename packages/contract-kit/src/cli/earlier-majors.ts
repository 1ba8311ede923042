import { join, relative } from 'node:path';
import { loadContract } from '../contract/load-contract.js';
import { compareContracts, type ContractComparison } from './compare-contracts.js';
import { report } from './breaking-report.js';
import { findBaseRevision, writeContractAtRevision } from './git-revision.js';
import { releasedContracts, scheduledEndProblems } from './released-contracts.js';

/** A served earlier major's comparison with its own last committed version: its file, and that commit. */
export type EarlierMajor = ContractComparison & { file: string; base: string };

/**
 * Compares each released contract of `dir` below `major` (an earlier major still served) with its
 * own last committed version: its clients are promised it too, and no major can be raised for it,
 * so any breaking change fails. `say` receives the text report.
 */
export async function checkEarlierMajors(
  dir: string,
  major: number,
  { cwd, scratch, say }: { cwd: string; scratch: string; say: (text: string) => void },
): Promise<EarlierMajor[]> {
  const checked: EarlierMajor[] = [];
  for (const released of releasedContracts(dir).filter((r) => r.major < major)) {
    const file = relative(cwd, released.path) || released.path;
    const revision = findBaseRevision(released.path);
    if (!revision.found) {
      say(`\n${file}: ${revision.description}\n✔ Nothing to check.\n`);
      continue;
    }
    // A folder per major: each revision is unpacked whole, and two may differ.
    const path = writeContractAtRevision(released.path, revision.commit, join(scratch, `${released.major}.x`));
    say(`\nComparing ${file} (the ${released.major}.x line, still served) with ${revision.description}…\n`);
    const comparison = await compareContracts(path, released.path, { base: `${revision.commit.slice(0, 7)}:${file}`, revision: file });
    const kept = { ...comparison, majorRaised: false, passes: comparison.breaking.length === 0 };
    say(report(kept));
    checked.push({ ...kept, file, base: revision.commit });
  }
  return checked;
}

/** The scheduled-end problems of each released contract of `dir` below `major`, named by their files. */
export async function earlierScheduledEnds(dir: string, major: number, cwd: string): Promise<string[]> {
  const problems: string[] = [];
  for (const released of releasedContracts(dir).filter((r) => r.major < major)) {
    const file = relative(cwd, released.path) || released.path;
    problems.push(...scheduledEndProblems(await loadContract(released.path, file), file));
  }
  return problems;
}
