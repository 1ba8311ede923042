import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveRef, unescapePointer, type OpenApiDocument } from '../contract/document.js';
import { loadContract } from '../contract/load-contract.js';
import { componentUses, operationsAlsoUsing, type ComponentUse } from './component-uses.js';
import { redoclyOutput } from './tools.js';
import { majorOrNone } from '../contract/version.js';

export { majorOf } from '../contract/version.js';

/** One place where Redocly's `diff` saw a change, as its JSON report gives it. */
interface RedoclyChange {
  path: string;
  typeName?: string;
  kind: string;
  impact: string;
  property?: string;
  verdicts: { ruleId: string; impact: string; message: string; location?: { pointer?: string; line?: number } }[];
  base?: { line?: number };
  revision?: { line?: number };
}

/** How a change is classed: breaking; rated breaking by the diff but allowed by the contract; compatible (minor, patch). */
export const CHANGE_CLASSES = ['breaking', 'allowed-by-contract', 'minor', 'patch'] as const;
export type ChangeClass = (typeof CHANGE_CLASSES)[number];

/** One change a client could notice, rated by the semantic-version bump it needs. */
export interface ContractChange {
  class: ChangeClass;
  /** The operation it affects (`GET /books`), or the JSON pointer of a change outside operations. */
  where: string;
  /**
   * Every operation the change affects: `where` first, then the others that use the component it
   * is in (Redocly walks a component once and reports its changes at the first operation it met).
   */
  operations: string[];
  pointer: string;
  message: string;
  /** The Redocly rule that rated it; null when Redocly's default rating applied. */
  ruleId: string | null;
  impact: 'major' | 'minor' | 'patch';
  file: string;
  line?: number;
  side: 'base' | 'revision';
  /** Set when the contract itself declares this change compatible. */
  allowedBecause?: string;
}

/** The outcome of comparing two versions of a contract. */
export interface ContractComparison {
  baseVersion: string;
  revisionVersion: string;
  changes: ContractChange[];
  breaking: ContractChange[];
  allowed: ContractChange[];
  compatible: { minor: number; patch: number };
  majorRaised: boolean;
  /** Nothing breaking, or a raised major version. */
  passes: boolean;
}

const METHOD = /^(get|put|post|delete|patch|head|options|trace|query)$/;
const segments = (pointer: string) => pointer.replace(/^#\//, '').split('/').map(unescapePointer);

/**
 * The operation the segments of a pointer under `paths` are in: its method, and how many segments
 * name it after the path (`get`: 1; OpenAPI 3.2's `additionalOperations/LINK`: 2); undefined for
 * the path item's own parts.
 */
function operationAt([, , key, name]: string[]): { method: string; depth: number } | undefined {
  if (key === 'additionalOperations' && name !== undefined) return { method: name.toUpperCase(), depth: 2 };
  return key !== undefined && METHOD.test(key) ? { method: key.toUpperCase(), depth: 1 } : undefined;
}

function describeLocation(pointer: string): string {
  const parts = segments(pointer);
  const [root, path] = parts;
  if (root !== 'paths' || path === undefined) return pointer;
  const op = operationAt(parts);
  return op ? `${op.method} ${path}` : path;
}

function belowLocation(pointer: string): string {
  const parts = segments(pointer);
  if (parts[0] !== 'paths' || parts[1] === undefined) return '';
  return parts.slice(2 + (operationAt(parts)?.depth ?? 0)).join('/');
}

const asImpact = (impact: string, fallback: ContractChange['impact']): ContractChange['impact'] =>
  impact === 'major' || impact === 'minor' || impact === 'patch' ? impact : fallback;

/**
 * Why the revision's contract allows a change a diff rates breaking, or undefined: values added
 * to an enum the contract marks `x-extensible-enum: true` (its clients must take values they do
 * not know, such as new error codes).
 */
function allowance(revision: OpenApiDocument, ruleId: string, pointer: string | undefined): string | undefined {
  if (ruleId !== 'enum-values-added' || !pointer?.endsWith('/enum')) return undefined;
  try {
    const schema = resolveRef<Record<string, unknown> | undefined>(revision, { $ref: pointer.slice(0, -'/enum'.length) });
    return schema?.['x-extensible-enum'] === true ? 'the contract marks the enum x-extensible-enum: values may be added' : undefined;
  } catch {
    return undefined;
  }
}

/** Redocly's change, with every operation it affects. */
function toChanges(
  change: RedoclyChange,
  revision: OpenApiDocument,
  labels: { base: string; revision: string },
  uses: Record<'base' | 'revision', ComponentUse[]>,
): ContractChange[] {
  const where = describeLocation(change.path);
  const others = operationsAlsoUsing(uses[change.kind === 'removed' ? 'base' : 'revision'], where, change.path, change.kind);
  return judged(change, revision, labels).map((one) => ({ ...one, operations: [where, ...others] }));
}

function judged(
  change: RedoclyChange,
  revision: OpenApiDocument,
  labels: { base: string; revision: string },
): Omit<ContractChange, 'operations'>[] {
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
    const allowedBecause = verdictImpact === 'major' ? allowance(revision, verdict.ruleId, verdict.location?.pointer) : undefined;
    return {
      class: verdictImpact !== 'major' ? verdictImpact : allowedBecause ? 'allowed-by-contract' : 'breaking',
      where,
      pointer: change.path,
      message: verdict.message,
      ruleId: verdict.ruleId,
      impact: verdictImpact,
      ...at(verdict.location?.line),
      ...(allowedBecause ? { allowedBecause } : {}),
    };
  });
}

/**
 * Compares two versions of a contract with Redocly's `diff` (its rules rate each change by the
 * semantic-version bump it needs), and the allowances of the revision (x-extensible-enum). Both
 * are read first, so an unreadable one fails with its name.
 */
export async function compareContracts(
  basePath: string,
  revisionPath: string,
  labels: { base: string; revision: string } = { base: basePath, revision: revisionPath },
): Promise<ContractComparison> {
  const base = await loadContract(basePath, labels.base);
  const revision = await loadContract(revisionPath, labels.revision);
  // A version that is not a number (a date, a name) has no major to raise: a breaking change fails.
  const [revisionMajor, baseMajor] = [majorOrNone(revision.info.version), majorOrNone(base.info.version)];
  const majorRaised = revisionMajor !== undefined && baseMajor !== undefined && revisionMajor > baseMajor;
  // An empty working directory: Redocly must not pick up a redocly.yaml that is not about diffs.
  const cwd = mkdtempSync(join(tmpdir(), 'contract-kit-diff-'));
  try {
    const run = await redoclyOutput(['diff', basePath, revisionPath, '--format', 'json', '--fail-on', 'none'], cwd);
    let report: { changes?: RedoclyChange[] } | undefined;
    try {
      report = JSON.parse(run.stdout) as { changes?: RedoclyChange[] };
    } catch {
      report = undefined;
    }
    if (run.code !== 0 || !Array.isArray(report?.changes))
      throw new Error(`redocly diff failed (exit ${run.code}):\n${run.stderr || run.stdout}`);
    const uses = { base: componentUses(base), revision: componentUses(revision) };
    const changes = report.changes
      .flatMap((change) => toChanges(change, revision, labels, uses))
      .sort((a, b) => CHANGE_CLASSES.indexOf(a.class) - CHANGE_CLASSES.indexOf(b.class));
    const ofClass = (kind: ChangeClass) => changes.filter((change) => change.class === kind);
    const breaking = ofClass('breaking');
    return {
      baseVersion: base.info.version,
      revisionVersion: revision.info.version,
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
