/** `npm run audit:prod`: fails on a high or critical advisory in what the service ships. */
import { spawnSync } from 'node:child_process';
import { parseCommandLine } from '../src/shared/command-line.js';
import { readAuditReport, type Severity } from './support/audit-report.js';

const HELP = `Usage: npm run audit:prod [-- --level LEVEL]

Runs \`npm audit --omit=dev\` over the production dependencies (what the service ships; the
toolkit's development dependencies are left out) and fails on an advisory at LEVEL or above.

Exits 0 when none is found, 1 when one is, 3 when the registry does not serve the advisory
database (some mirrors answer 405): then nothing was checked, and it says so.

Options:
  --level LEVEL  low, moderate, high or critical (default: high).
  -h, --help     Show this help.
`;

const { values } = parseCommandLine(HELP, { level: { type: 'string', default: 'high' } });
if (!['low', 'moderate', 'high', 'critical'].includes(values.level)) {
  process.stderr.write(`--level must be low, moderate, high or critical, not "${values.level}"\n\n${HELP}`);
  process.exit(2);
}
const level = values.level as Severity;

const npm = spawnSync('npm', ['audit', '--omit=dev', '--json'], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
if (npm.error) {
  process.stderr.write(`Could not run npm: ${npm.error.message}\n`);
  process.exit(2);
}
const outcome = readAuditReport(npm.stdout, level);
if (outcome.kind === 'unavailable') {
  process.stderr.write(`npm audit: NOT CHECKED: ${outcome.reason}\n`);
  process.exit(3);
}
const { counts, blocking } = outcome;
process.stdout.write(
  `npm audit over ${outcome.dependencies} production dependencies: ${counts.critical} critical, ${counts.high} high, ${counts.moderate} moderate, ${counts.low} low.\n`,
);
for (const finding of blocking) {
  process.stdout.write(
    `  ${finding.severity.padEnd(8)} ${finding.name} ${finding.range}${finding.fixAvailable ? ' (fix available)' : ''}\n`,
  );
  for (const via of finding.via) process.stdout.write(`           ${via}\n`);
}
process.exit(blocking.length > 0 ? 1 : 0);
