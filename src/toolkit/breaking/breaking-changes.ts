import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSpec } from '../../contract/load-spec.js';
import { runRedocly } from '../../contract/redocly.js';
import { type ComponentUse, componentUses, operationsAlsoUsing } from './component-uses.js';

/** One place where Redocly's `diff` saw a change, as its JSON report gives it. */
interface RedoclyChange {
  path: string;
  typeName?: string;
  /** 'added', 'removed' or 'modified' in the versions we know; kept open for Redocly's next ones. */
  kind: string;
  /** 'major', 'minor' or 'patch'. */
  impact: string;
  property?: string;
  verdicts: { ruleId: string; impact: string; message: string; location?: { pointer?: string; line?: number } }[];
  base?: { line?: number };
  revision?: { line?: number };
}

/**
 * How a change is classed, in the order the report lists them: breaking; rated breaking by the
 * diff but allowed by the contract's own rules; compatible, needing a minor or a patch release.
 */
export const CHANGE_CLASSES = ['breaking', 'allowed-by-contract', 'minor', 'patch'] as const;
export type ChangeClass = (typeof CHANGE_CLASSES)[number];

/** One change a client could notice, rated by the semantic-version bump it needs. */
export interface ContractChange {
  class: ChangeClass;
  /** The operation it affects, such as `GET /pets`, or the JSON pointer when it is not in an operation. */
  where: string;
  /**
   * Every operation the change affects: `where` first, then the others that use the component
   * it is in (one line of Redocly's report stands for them all). Just `where` outside operations.
   */
  operations: string[];
  /** Redocly's JSON pointer of the change, such as `#/paths/~1pets/get/responses/200`. */
  pointer: string;
  /** What changed, in Redocly's words; for a change no rule judged, its kind and place. */
  message: string;
  /**
   * The Redocly rule that rated it, such as `operation-removed`; null when no rule judged it and
   * Redocly's default rating applies (an addition outside components is minor, the rest patch).
   */
  ruleId: string | null;
  impact: 'major' | 'minor' | 'patch';
  /** The document the line is in: the revision, or for removals the base. */
  file: string;
  /** Line in `file` where the change is. */
  line?: number;
  side: 'base' | 'revision';
  /** Set when the contract itself declares this kind of change compatible. */
  allowedBecause?: string;
}

/** The outcome of comparing two versions of the contract. */
export interface ContractComparison {
  baseVersion: string;
  revisionVersion: string;
  /** Every change the diff found, breaking first, then allowed by the contract, minor and patch. */
  changes: ContractChange[];
  /** The changes that can break an existing client (class `breaking`). */
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
export function majorOf(version: unknown, label: string): number {
  const match = typeof version === 'string' ? /^(\d+)\.\d+\.\d+(?:[-+].*)?$/.exec(version) : null;
  if (!match) throw new Error(`info.version of ${label} is ${JSON.stringify(version)}, not a semantic version such as 1.2.0`);
  return Number(match[1]);
}

const METHOD = /^(get|put|post|delete|patch|head|options|trace)$/;

/** The decoded segments of a JSON pointer (RFC 6901): `#/paths/~1pets` → `['paths', '/pets']`. */
const segments = (pointer: string): string[] =>
  pointer
    .replace(/^#\//, '')
    .split('/')
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));

/** `#/paths/~1pets~1{petId}/get/...` → `GET /pets/{petId}`; other pointers are returned as they are. */
function describeLocation(pointer: string): string {
  const [root, path, method] = segments(pointer);
  if (root !== 'paths' || path === undefined) return pointer;
  return method && METHOD.test(method) ? `${method.toUpperCase()} ${path}` : path;
}

const asImpact = (impact: string, fallback: ContractChange['impact']): ContractChange['impact'] =>
  impact === 'major' || impact === 'minor' || impact === 'patch' ? impact : fallback;

/** `#/paths/~1pets/get/responses/200` → `responses/200`: what a pointer names below the place `describeLocation` gives. */
function belowLocation(pointer: string): string {
  const parts = segments(pointer);
  if (parts[0] !== 'paths' || parts[1] === undefined) return '';
  return parts.slice(METHOD.test(parts[2] ?? '') ? 3 : 2).join('/');
}

/**
 * Redocly's change with every operation it affects: Redocly walks a component once and reports
 * its changes at the first operation it met it in.
 */
function toChanges(
  change: RedoclyChange,
  labels: { base: string; revision: string },
  uses: Record<'base' | 'revision', ComponentUse[]>,
): ContractChange[] {
  const where = describeLocation(change.path);
  const others = operationsAlsoUsing(uses[change.kind === 'removed' ? 'base' : 'revision'], where, change.path, change.kind);
  return judged(change, labels).map((one) => ({ ...one, operations: [where, ...others] }));
}

function judged(change: RedoclyChange, labels: { base: string; revision: string }): Omit<ContractChange, 'operations'>[] {
  const side: ContractChange['side'] = change.kind === 'removed' ? 'base' : 'revision';
  const where = describeLocation(change.path);
  const impact = asImpact(change.impact, 'major');
  const at = (line: number | undefined) => ({ file: labels[side], line: line ?? change[side]?.line, side });
  if (change.verdicts.length === 0) {
    const place = belowLocation(change.path);
    const message = `${change.typeName ?? 'Node'} ${change.kind}${place ? ` at ${place}` : ''}${change.property ? `: ${change.property}` : ''}`;
    return [
      { class: impact === 'major' ? 'breaking' : impact, where, pointer: change.path, message, ruleId: null, impact, ...at(undefined) },
    ];
  }
  return change.verdicts.map((verdict) => {
    const verdictImpact = asImpact(verdict.impact, impact);
    const allowed =
      verdictImpact === 'major'
        ? ALLOWED_BY_CONTRACT.find((rule) => rule.ruleId === verdict.ruleId && rule.pointer === verdict.location?.pointer)
        : undefined;
    return {
      class: verdictImpact !== 'major' ? verdictImpact : allowed ? 'allowed-by-contract' : 'breaking',
      where,
      pointer: change.path,
      message: verdict.message,
      ruleId: verdict.ruleId,
      impact: verdictImpact,
      ...at(verdict.location?.line),
      ...(allowed ? { allowedBecause: allowed.because } : {}),
    };
  });
}

/**
 * Compares two OpenAPI documents with Redocly's `diff` (its rules rate each change by the
 * semantic-version bump it needs) and applies the contract's own compatibility rules. Both
 * files are read first, so a missing or malformed document fails with its path and line.
 */
export async function compareContracts(
  basePath: string,
  revisionPath: string,
  labels = { base: basePath, revision: revisionPath },
): Promise<ContractComparison> {
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
    const uses = { base: componentUses(base), revision: componentUses(revision) };
    const changes = report.changes
      .flatMap((change) => toChanges(change, labels, uses))
      .sort((a, b) => CHANGE_CLASSES.indexOf(a.class) - CHANGE_CLASSES.indexOf(b.class));
    const ofClass = (kind: ChangeClass) => changes.filter((change) => change.class === kind);
    const breaking = ofClass('breaking');
    const majorRaised = revisionMajor > baseMajor;
    return {
      baseVersion: String(base.info.version),
      revisionVersion: String(revision.info.version),
      changes,
      breaking,
      allowed: ofClass('allowed-by-contract'),
      compatible: { minor: ofClass('minor').length, patch: ofClass('patch').length },
      majorRaised,
      passes: breaking.length === 0 || majorRaised,
    };
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
}
