/** How the mock picks Prism's answer (the Prefer header) and dresses it in the headers the server would send. */
import { isDeepStrictEqual } from 'node:util';
import { namedExamples, unfitFields, type ExampleObject } from '../../contract/response-examples.js';
import type { MockContract, MockOperation } from './mock-contract.js';
import { withoutHeaderViolation } from './prism-translation.js';

/** Response headers as Node gives them, by lower-case name. */
export type ResponseHeaders = Record<string, string | string[] | undefined>;

/** Prism's Prefer header as its parts: `code=429, example=X` → {code: '429', example: 'X'}. */
export function preferParts(header: string | undefined): Map<string, string> {
  const parts = new Map<string, string>();
  for (const part of (header ?? '').split(',')) {
    const eq = part.indexOf('=');
    if (eq > 0) parts.set(part.slice(0, eq).trim().toLowerCase(), part.slice(eq + 1).trim());
  }
  return parts;
}

/**
 * `Prefer: code=N` without an example: names the first example of that response that fits
 * the operation, so that a 400 on GET /pets names a query parameter, not a body field.
 */
export function preferFitting(contract: MockContract, prefer: string | undefined, op: MockOperation | undefined): string | undefined {
  const parts = preferParts(prefer);
  const code = parts.get('code');
  if (!op || code === undefined || parts.has('example')) return prefer;
  const response = op.responses[code];
  if (!response) return prefer;
  const fitting = namedExamples(response, contract.resolve).find(([, example]) => unfitFields(example?.value, op.inputs).length === 0);
  return fitting ? `${prefer}, example=${fitting[0]}` : prefer;
}

/** The example of a response Prism answered with, found by its body. */
function exampleSent(contract: MockContract, response: Record<string, unknown> | undefined, raw: Buffer): ExampleObject | undefined {
  if (!response || raw.length === 0) return undefined;
  let body: unknown;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch {
    return undefined;
  }
  return namedExamples(response, contract.resolve).find(([, example]) => isDeepStrictEqual(example?.value, body))?.[1];
}

/**
 * Sets the headers of an operation's response as the server would send them: those its example
 * goes with (`x-headers`), the operation's own deprecation headers in place of Prism's, and no
 * `Idempotent-Replayed` on a first answer.
 */
export function dressHeaders(
  contract: MockContract,
  headers: ResponseHeaders,
  op: MockOperation | undefined,
  status: number,
  raw: Buffer,
): void {
  const example = exampleSent(contract, op?.responses[String(status)], raw);
  // Prism makes up a value for an optional header; this one the server sends only on a replay,
  // which the mock, storing nothing, never makes (unless the example is of one).
  delete headers['idempotent-replayed'];
  for (const [name, value] of Object.entries(example?.['x-headers'] ?? {})) headers[name.toLowerCase()] = String(value);
  const sentDeprecation = headers.deprecation;
  delete headers.deprecation;
  delete headers.sunset;
  if (typeof headers.link === 'string' && /rel="?successor-version"?/.test(headers.link)) delete headers.link;
  for (const [name, value] of Object.entries(op?.deprecation ?? {})) headers[name.toLowerCase()] = value;
  // Prism marks a deprecated operation's responses with `Deprecation: true`, and reports its
  // own value as breaking the contract's header; the value it reported is gone.
  const violations = headers['sl-violations'];
  if (sentDeprecation !== undefined && typeof violations === 'string') {
    const rest = withoutHeaderViolation(violations, 'deprecation');
    if (rest === null) delete headers['sl-violations'];
    else headers['sl-violations'] = rest;
  }
}
