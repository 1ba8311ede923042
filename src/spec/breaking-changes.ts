import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSpec } from './load-spec.js';
import { runRedocly } from './redocly.js';

/** One place where Redocly's `diff` saw a change, as its JSON report gives it. */
interface RedoclyChange {
  path: string;
  kind: 'added' | 'removed' | 'modified' | string;
  impact: 'major' | 'minor' | 'patch' | string;
  verdicts: { ruleId: string; impact: string; message: string; location?: { pointer?: string; line?: number } }[];
  base?: { line?: number };
  revision?: { line?: number };
}

/** One change a client could notice, rated by the semantic-version bump it needs. */
export interface ContractChange {
  /** The operation it affects, such as `GET /pets`, or the JSON pointer when it is not in an operation. */
  where: string;
  /** What changed, in Redocly's words. */
  message: string;
  /** The Redocly rule that rated it, such as `operation-removed`. */
  ruleId: string;
  impact: 'major' | 'minor' | 'patch';
  /** Line in the revision (or, for removals, in the base) where the change is. */
  line?: number;
  side: 'base' | 'revision';
  /** Set when the contract itself declares this kind of change compatible. */
  allowedBecause?: string;
}

/** The outcome of comparing two versions of the contract. */
export interface ContractComparison {
  baseVersion: string;
  revisionVersion: string;
  /** Changes that can break an existing client. */
  breaking: ContractChange[];
  /** Changes a diff tool rates breaking but the contract's own rules allow within a major version. */
  allowed: ContractChange[];
  /** Counts of the compatible changes. */
  compatible: { minor: number; patch: number };
  /** Whether info.version's major number was raised. */
  majorRaised: boolean;
  /** Whether the revision may be released as it is: nothing breaking, or a raised major. */
  passes: boolean;
}

/**
 * Kinds of change Redocly rates major that this contract declares compatible: its introduction
 * says "within /v1, fields, operations and error codes may be added". Adding values to any
 * other enum (such as PetStatus, which clients may switch on) stays breaking.
 */
const ALLOWED_BY_CONTRACT: { ruleId: string; pointer: string; because: string }[] = [
  {
    ruleId: 'enum-values-added',
    pointer: '#/components/schemas/ErrorCode/enum',
    because: 'the contract says error codes may be added within /v1',
  },
];

/** The major number of a semantic version, or an error naming the document. */
function majorOf(version: unknown, label: string): number {
  const match = typeof version === 'string' ? /^(\d+)\.\d+\.\d+(?:[-+].*)?$/.exec(version) : null;
  if (!match) throw new Error(`info.version of ${label} is ${JSON.stringify(version)}, not a semantic version such as 1.2.0`);
  return Number(match[1]);
}

/** `#/paths/~1pets~1{petId}/get/...` → `GET /pets/{petId}`; other pointers are returned as they are. */
export function describeLocation(pointer: string): string {
  const parts = pointer.replace(/^#\//, '').split('/').map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));
  const [root, path, method] = parts;
  if (root !== 'paths' || path === undefined) return pointer;
  return method && /^(get|put|post|delete|patch|head|options|trace)$/.test(method) ? `${method.toUpperCase()} ${path}` : path;
}

function toChanges(change: RedoclyChange): ContractChange[] {
  const side = change.kind === 'removed' ? 'base' : 'revision';
  const line = change[side]?.line;
  const where = describeLocation(change.path);
  const impact = (['major', 'minor', 'patch'].includes(change.impact) ? change.impact : 'major') as ContractChange['impact'];
  if (change.verdicts.length === 0) {
    return [{ where, message: `${change.kind} at ${change.path}`, ruleId: `${change.kind}`, impact, line, side }];
  }
  return change.verdicts.map((verdict) => {
    const allowed = ALLOWED_BY_CONTRACT.find((rule) => rule.ruleId === verdict.ruleId && rule.pointer === verdict.location?.pointer);
    return {
      where,
      message: verdict.message,
      ruleId: verdict.ruleId,
      impact: (['major', 'minor', 'patch'].includes(verdict.impact) ? verdict.impact : impact) as ContractChange['impact'],
      line: verdict.location?.line ?? line,
      side,
      ...(allowed ? { allowedBecause: allowed.because } : {}),
    };
  });
}

/**
 * Compares two OpenAPI documents with Redocly's `diff` (its rules rate each change by the
 * semantic-version bump it needs) and applies the contract's own compatibility rules. Both
 * files are read first, so a missing or malformed document fails with its path and line.
 */
export async function compareContracts(basePath: string, revisionPath: string, labels = { base: basePath, revision: revisionPath }): Promise<ContractComparison> {
  const base = loadSpec(basePath, labels.base);
  const revision = loadSpec(revisionPath, labels.revision);
  const baseMajor = majorOf(base.info?.version, labels.base);
  const revisionMajor = majorOf(revision.info?.version, labels.revision);

  // An empty working directory: Redocly must not pick up a redocly.yaml that is not about diffs.
  const cwd = mkdtempSync(join(tmpdir(), 'animal-store-diff-'));
  try {
    const run = await runRedocly(['diff', basePath, revisionPath, '--format', 'json', '--fail-on', 'none'], { cwd });
    let report: { changes: RedoclyChange[] };
    try {
      report = JSON.parse(run.stdout) as { changes: RedoclyChange[] };
    } catch {
      throw new Error(`redocly diff failed (exit ${run.code}):\n${run.stderr || run.stdout}`);
    }
    if (run.code !== 0 || !Array.isArray(report.changes)) {
      throw new Error(`redocly diff failed (exit ${run.code}):\n${run.stderr || run.stdout}`);
    }
    const changes = report.changes.flatMap(toChanges);
    const breaking = changes.filter((change) => change.impact === 'major' && !change.allowedBecause);
    const majorRaised = revisionMajor > baseMajor;
    return {
      baseVersion: String(base.info.version),
      revisionVersion: String(revision.info.version),
      breaking,
      allowed: changes.filter((change) => change.allowedBecause),
      compatible: {
        minor: changes.filter((change) => change.impact === 'minor').length,
        patch: changes.filter((change) => change.impact === 'patch').length,
      },
      majorRaised,
      passes: breaking.length === 0 || majorRaised,
    };
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
}
