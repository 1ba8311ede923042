import { CHANGE_CLASSES, type ChangeClass, type ContractChange, type ContractComparison } from './compare-contracts.js';
import { majorOrNone } from '../contract/version.js';

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

/** A comparison as check-breaking prints it: each class of change under its heading, then the verdict. */
export function report(comparison: ContractComparison): string {
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
