import type { OpenApiDocument } from '../contract/document.js';
import { HTTP_METHODS, listOperations, type Operation } from '../contract/operations.js';
import type { ContractChecker, ObservedResponse } from './checker.js';
import { RequestPlanner, withCredentials, type CredentialSource, type PlannedRequest } from './requests.js';
import { ContractSchemas } from './schemas.js';

/** A server that claims to serve the contract. */
export interface ConformanceTarget {
  /** Its URL with the contract's base path (`http://127.0.0.1:3000/v1`). */
  baseUrl: string;
  /** A valid credential for each security scheme of the contract the cases may use. */
  credential: CredentialSource;
  /** Violations a validating proxy in front of the server reported in a response; each fails the case. */
  reportedViolations?(headers: Headers): string[];
}

/** What a case is about: a valid request, one without credentials, one with an input broken, routing, or generated requests. */
export type CaseKind = 'valid' | 'credentials' | 'invalid' | 'media-type' | 'routing' | 'property';

/** One check of the conformance suite, made from the contract. */
export interface ConformanceCase {
  /** Starts with the operation's name, for a case about one operation. */
  name: string;
  kind: CaseKind;
  /** The operation's name, or null for the routing cases. */
  operation: string | null;
  /**
   * Sends its request and checks the answer; throws a ConformanceViolation listing what is
   * wrong. Returns a sentence when the case cannot be run (a value or a credential it has no way
   * to make), which a test reports as skipped.
   */
  run(target: ConformanceTarget, checker: ContractChecker): Promise<string | undefined>;
}

/** Thrown when an answer breaks the contract; lists every violation with the request. */
export class ConformanceViolation extends Error {
  /** `observed` is left out for a message that is already the whole story (a property's counterexample). */
  constructor(request: string, observed: ObservedResponse | undefined, violations: string[]) {
    super(
      observed
        ? `${request} → ${observed.status} breaks the contract:\n  - ${violations.join('\n  - ')}`
        : `${request}\n  - ${violations.join('\n  - ')}`,
    );
    this.name = 'ConformanceViolation';
  }
}

/** Statuses that say a request was refused: a valid request must get none of them. */
const REFUSED = new Set([400, 401, 403, 405, 406, 411, 413, 415, 422]);

/** How long an answer may take. */
const ANSWER_TIMEOUT_MS = 10_000;

export async function send(target: ConformanceTarget, request: PlannedRequest): Promise<ObservedResponse> {
  const query = new URLSearchParams(request.query).toString();
  const response = await fetch(`${target.baseUrl}${request.path}${query ? `?${query}` : ''}`, {
    method: request.method,
    // JSON first where an answer has several media types (a mock picks by Accept).
    headers: { Accept: 'application/json, */*;q=0.8', ...request.headers },
    body: request.body ?? null,
    redirect: 'manual',
    // A server that never answers is a failure to report, not a wait without end.
    signal: AbortSignal.timeout(ANSWER_TIMEOUT_MS),
  });
  return {
    status: response.status,
    headers: response.headers,
    text: await response.text(),
    reported: target.reportedViolations?.(response.headers),
  };
}

export const described = (request: PlannedRequest) =>
  `${request.method} ${request.path}${request.query.length > 0 ? `?${new URLSearchParams(request.query).toString()}` : ''}`;

/** Whether the operation declares `status` itself, by its class (`4XX`) or by `default`. */
function declares(op: Operation, status: number): boolean {
  const responses = (op.raw.responses ?? {}) as Record<string, unknown>;
  return [String(status), `${String(status)[0]}XX`, 'default'].some((key) => key in responses);
}

/**
 * What is wrong with an answer: the status expected (any declared one but a refusal or a 5xx,
 * for `expected: 'accepted'`), then the checker's findings (the contract's, where the operation
 * declares the status; else those of an answer no operation declares) and a proxy's reports. A
 * stub's answer is that alone.
 */
export function answerViolations(
  checker: ContractChecker,
  op: Operation | null,
  observed: ObservedResponse,
  expected: number | 'accepted',
): string[] {
  const unimplemented = op && checker.notImplemented(op.name, observed);
  if (unimplemented) return [unimplemented];
  const violations =
    op && (expected === 'accepted' || declares(op, observed.status))
      ? checker.checkResponse(op.name, observed)
      : op?.method === 'head'
        ? [] // no body to judge
        : checker.checkErrorResponse(observed);
  if (expected === 'accepted' && (REFUSED.has(observed.status) || observed.status >= 500)) {
    violations.unshift(`a valid request was answered ${observed.status}: ${observed.text.slice(0, 2000)}`);
  } else if (expected !== 'accepted' && observed.status !== expected) {
    violations.unshift(`expected status ${expected}, got ${observed.status}`);
  }
  return [...violations, ...(observed.reported ?? [])];
}

/** Throws a ConformanceViolation listing what is wrong with an answer (answerViolations, and `more`), if anything is. */
function expectAnswer(
  checker: ContractChecker,
  op: Operation | null,
  request: PlannedRequest,
  observed: ObservedResponse,
  expected: number | 'accepted',
  more: string[] = [],
): void {
  const violations = [...answerViolations(checker, op, observed, expected), ...more];
  if (violations.length > 0) throw new ConformanceViolation(described(request), observed, violations);
}

/** A valid request of `op` with credentials, or why there is none. */
async function validRequest(planner: RequestPlanner, op: Operation, target: ConformanceTarget): Promise<PlannedRequest | string> {
  const request = planner.valid(op);
  if (typeof request === 'string') return `${op.name}: ${request}`;
  const placed = await planner.credentials(op, target.credential);
  return typeof placed === 'string' ? `${op.name}: ${placed}` : withCredentials(request, placed);
}

/** The cases about one operation. */
function operationCases(planner: RequestPlanner, op: Operation): ConformanceCase[] {
  /** A case that sends the operation's valid request, changed by `alter`, and expects `expected`. */
  const variant = (
    name: string,
    kind: CaseKind,
    expected: number | 'accepted',
    alter: (request: PlannedRequest) => PlannedRequest = (request) => request,
  ): ConformanceCase => ({
    name: `${op.name}: ${name}`,
    kind,
    operation: op.name,
    async run(target, checker) {
      const request = await validRequest(planner, op, target);
      if (typeof request === 'string') return request;
      const sent = alter(request);
      expectAnswer(checker, op, sent, await send(target, sent), expected);
      return undefined;
    },
  });
  const cases = [
    variant(`a valid request (${op.method.toUpperCase()} ${op.path}) is answered as the contract declares`, 'valid', 'accepted'),
  ];
  if (!planner.isOpen(op)) {
    cases.push({
      name: `${op.name}: a request without credentials is refused with 401`,
      kind: 'credentials',
      operation: op.name,
      async run(target, checker) {
        const request = planner.valid(op);
        if (typeof request === 'string') return `${op.name}: ${request}`;
        expectAnswer(checker, op, request, await send(target, request), 401);
        return undefined;
      },
    });
  }
  for (const p of op.parameters) {
    const broken = p.in === 'cookie' ? undefined : planner.brokenParameter(p);
    if (broken === undefined) continue;
    cases.push(
      variant(`a ${p.in} parameter ${p.name} its schema refuses is refused with 400`, 'invalid', 400, (request) => {
        if (p.in === 'query') return { ...request, query: [...request.query.filter(([name]) => name !== p.name), [p.name, broken]] };
        if (p.in === 'header') return { ...request, headers: { ...request.headers, [p.name]: broken } };
        // The other path parameters keep their valid values.
        let path = op.path.replace(`{${p.name}}`, encodeURIComponent(broken));
        for (const other of op.parameters.filter((o) => o.in === 'path' && o !== p))
          path = path.replace(`{${other.name}}`, encodeURIComponent(planner.parameterValue(other)![0]!));
        return { ...request, path };
      }),
    );
  }
  const brokenBody = planner.brokenJsonBody(op);
  if (brokenBody) {
    cases.push(
      variant('a JSON body its schema refuses is refused with 400', 'invalid', 400, (request) => ({
        ...request,
        headers: { ...request.headers, 'Content-Type': brokenBody.contentType },
        body: brokenBody.text,
      })),
    );
  }
  const types = Object.keys(op.requestBody?.content ?? {});
  if (op.requestBody && !types.some((t) => t.includes('*') || t.startsWith('text/'))) {
    cases.push(
      variant('a body of a media type it does not declare is refused with 415', 'media-type', 415, (request) => ({
        ...request,
        headers: { ...request.headers, 'Content-Type': 'text/plain' },
        body: 'plain text',
      })),
    );
  }
  return cases;
}

/** The routing cases: a path outside the contract is 404, a method its path lacks is 405 with Allow. */
function routingCases(planner: RequestPlanner, operations: Operation[]): ConformanceCase[] {
  /** Credentials of some operation, for a server that asks for them before it routes. */
  const anyCredentials = async (target: ConformanceTarget, first: Operation[]) => {
    for (const op of first) {
      const placed = await planner.credentials(op, target.credential);
      if (typeof placed !== 'string') return placed;
    }
    return { headers: {}, query: [], cookies: [] };
  };
  const cases: ConformanceCase[] = [
    {
      name: 'a path outside the contract is answered 404',
      kind: 'routing',
      operation: null,
      async run(target, checker) {
        const request = withCredentials(
          // Segments no template of one or two segments (a catch-all `/{path}`) matches.
          { method: 'GET', path: '/no-such-path-in-the-contract/a/b/c/d/e/f', query: [], headers: {} },
          await anyCredentials(target, operations),
        );
        expectAnswer(checker, null, request, await send(target, request), 404);
        return undefined;
      },
    },
  ];
  const paths = [...new Set(operations.map((op) => op.path))];
  const lacking = (path: string) =>
    HTTP_METHODS.filter((m) => m !== 'options' && m !== 'head' && m !== 'trace').find(
      (m) => !operations.some((op) => op.path === path && op.method === m),
    );
  const path = paths.find((p) => lacking(p) !== undefined);
  if (path === undefined) return cases;
  const ops = operations.filter((op) => op.path === path);
  const missing = lacking(path)!;
  cases.push({
    name: `a method ${path} does not have (${missing.toUpperCase()}) is answered 405 with Allow`,
    kind: 'routing',
    operation: null,
    async run(target, checker) {
      const valid = await validRequest(planner, ops[0]!, target);
      if (typeof valid === 'string') return valid;
      const request = { ...valid, method: missing.toUpperCase(), body: undefined };
      const observed = await send(target, request);
      const allow = (observed.headers.get('Allow') ?? '').split(',').map((m) => m.trim().toLowerCase());
      const unnamed = ops.map((op) => op.method).filter((m) => !allow.includes(m));
      expectAnswer(checker, null, request, observed, 405, unnamed.length > 0 ? [`Allow does not name ${unnamed.join(', ')}`] : []);
      return undefined;
    },
  });
  return cases;
}

/**
 * The conformance suite of a contract, made from the contract alone: for each operation, a
 * valid request (parameters and body from the contract's examples, else from its schemas, with
 * the target's credentials) answered with a status it declares and in the shape it declares;
 * without credentials, 401; each parameter and a JSON body its schema refuses, 400; a media
 * type it does not declare, 415; and a path outside the contract (404) and a method a path lacks
 * (405). An operation added to the contract is covered without a line of test.
 */
export function conformanceCases(doc: OpenApiDocument): ConformanceCase[] {
  const planner = new RequestPlanner(doc, new ContractSchemas(doc));
  const operations = listOperations(doc);
  return [...operations.flatMap((op) => operationCases(planner, op)), ...routingCases(planner, operations)];
}

/** What became of a case: passed, failed (with the violations), or skipped (with why). */
export type CaseOutcome = { passed: true } | { failed: string } | { skipped: string };

/**
 * Runs the suite (the cases `only` keeps) against a target, one case after the other, and
 * returns each case's outcome by name. Errors other than violations (a refused connection) are
 * thrown.
 */
export async function runConformance(
  cases: ConformanceCase[],
  target: ConformanceTarget,
  checker: ContractChecker,
  only: (c: ConformanceCase) => boolean = () => true,
): Promise<Map<string, CaseOutcome>> {
  const outcomes = new Map<string, CaseOutcome>();
  for (const c of cases.filter(only)) {
    try {
      const skipped = await c.run(target, checker);
      outcomes.set(c.name, skipped === undefined ? { passed: true } : { skipped });
    } catch (error) {
      if (!(error instanceof ConformanceViolation)) throw error;
      outcomes.set(c.name, { failed: error.message });
    }
  }
  return outcomes;
}
