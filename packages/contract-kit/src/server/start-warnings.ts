import { ContractError, type OpenApiDocument } from '../contract/document.js';
import type { Operation } from '../contract/operations.js';
import { rewrittenPatterns, unknownFormats } from './schema-fixes.js';

/** @throws ContractError for an operation's `x-deprecated-at` or `x-sunset` that is not a date */
export function checkOperation(op: Operation, label: string): void {
  const where = `${label}${op.pointer}`;
  for (const [key, value] of [
    ['x-deprecated-at', op.deprecatedAt],
    ['x-sunset', op.sunset],
  ] as const) {
    if (value !== null && Number.isNaN(Date.parse(value))) throw new ContractError(where, `${key} ${JSON.stringify(value)} is not a date`);
  }
}

/** Warns of error bodies the contract declares other than RFC 9457's, which `errors: problemDetails` answers all the same. */
export function warnOfOtherErrorBodies(operations: Operation[], label: string, warn: (message: string) => void): void {
  const other = operations.flatMap((op) =>
    Object.entries(op.responses)
      .filter(([status]) => /^[45]|^default$/i.test(status))
      .flatMap(([status, response]) =>
        Object.keys(response.content)
          .filter((type) => !/problem\+json/i.test(type))
          .map((type) => `${op.pointer}/responses/${status} (${type})`),
      ),
  );
  if (other.length > 0)
    warn(
      `${label} declares error bodies other than RFC 9457's, such as ${other[0]}, and errors is problemDetails: every error is application/problem+json`,
    );
}

/**
 * Warns of the contract's patterns read otherwise than written or not checked, and of formats
 * the validator does not know; returns those formats (any value passes them).
 */
export function warnOfSchemaFixes(doc: OpenApiDocument, label: string, warn: (message: string) => void): string[] {
  const { rewritten, dropped } = rewrittenPatterns(doc);
  const quoted = (patterns: string[]) =>
    patterns
      .slice(0, 3)
      .map((p) => JSON.stringify(p))
      .join(', ') + (patterns.length > 3 ? ', …' : '');
  if (rewritten.length > 0)
    warn(`${label}: ${rewritten.length} pattern(s) are read as written without the u flag, which their escapes need: ${quoted(rewritten)}`);
  if (dropped.length > 0) warn(`${label}: ${dropped.length} pattern(s) are no regular expression, and are not checked: ${quoted(dropped)}`);
  const unknown = unknownFormats(doc);
  if (unknown.length > 0) warn(`the validator does not know the format(s) ${unknown.join(', ')}: any value passes them`);
  return unknown;
}

/**
 * Warns, in a line each, of the operations that answer 501: for a defect of the contract, or for
 * want of a handler.
 */
export function warnOfUnserved(operations: Operation[], unwritten: string[], label: string, warn: (message: string) => void): void {
  const defective = operations.filter((op) => op.defect !== null);
  if (defective.length > 0)
    warn(
      `${label}: ${defective.length} operation${defective.length === 1 ? '' : 's'} answer 501 for a defect of the contract: ${defective
        .slice(0, 5)
        .map((op) => `${op.name} (${op.method.toUpperCase()} ${op.path}): ${op.defect}`)
        .join('; ')}${defective.length > 5 ? `; and ${defective.length - 5} more` : ''}`,
    );
  // One line however many: a contract served before its handlers are written has hundreds.
  if (unwritten.length > 0)
    warn(
      unwritten.length <= 10 ? unwritten.join('; ') : `${unwritten.slice(0, 10).join('; ')}; and ${unwritten.length - 10} more like them`,
    );
}
