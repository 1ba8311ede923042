import type { OpenApiDocument } from '../contract/document.js';
import { HTTP_METHODS } from '../contract/methods.js';
import { listOperations, type Operation } from '../contract/operations.js';
import { ConformanceViolation, expectAnswer, send, type ConformanceTarget } from './answers.js';
import type { ContractChecker } from './checker.js';
import { withCredentials } from './credentials.js';
import { RequestPlanner, setByClient, type PlannedRequest } from './requests.js';
import { ContractSchemas } from './schemas.js';

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

/** A valid request of `op` with credentials, or why there is none. */
async function validRequest(planner: RequestPlanner, op: Operation, target: ConformanceTarget): Promise<PlannedRequest | string> {
  if (!canHaveBody(op.method) && op.requestBody?.required)
    return `${op.name}: fetch sends no body with ${op.method.toUpperCase()}, which the contract requires one with`;
  const request = planner.valid(op);
  if (typeof request === 'string') return `${op.name}: ${request}`;
  const placed = await planner.credentials(op, target.credential);
  return typeof placed === 'string' ? `${op.name}: ${placed}` : withCredentials(request, placed);
}

/** Whether fetch sends a body with the method (it sends none with GET or HEAD). */
const canHaveBody = (method: string) => method !== 'get' && method !== 'head';

/** The cases about one operation: one, skipped, for an operation with a defect of the contract (see Operation.defect). */
function operationCases(planner: RequestPlanner, op: Operation, operations: readonly Operation[]): ConformanceCase[] {
  if (op.defect !== null) {
    const why = `${op.name}: not served, for a defect of the contract: ${op.defect}`;
    return [{ name: `${op.name}: is served`, kind: 'valid', operation: op.name, run: () => Promise.resolve(why) }];
  }
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
        const valid = planner.valid(op);
        if (typeof valid === 'string') return `${op.name}: ${valid}`;
        // A parameter the contract declares where a scheme reads its key (a header of both) is left out too.
        const request = planner.withoutCredentials(op, valid);
        expectAnswer(checker, op, request, await send(target, request), 401);
        return undefined;
      },
    });
  }
  // A value other than the one its path key names (`/request/{id}?cmd=diff`) is another operation's, where one shares its URL.
  const shared = operations.some((other) => other !== op && other.method === op.method && other.urlPath === op.urlPath);
  const dispatches = (p: { in: string; name: string }) => shared && op.dispatch.some((d) => d.in === p.in && d.name === p.name);
  for (const p of op.parameters) {
    // A parameter that holds an API key gets the credential, broken or not.
    const broken = p.in === 'cookie' || setByClient(p) || dispatches(p) || planner.holdsKey(op, p) ? undefined : planner.brokenParameter(p);
    if (broken === undefined) continue;
    // A body in a coding the server does not know is 415 (RFC 9110, 15.5.16), whatever the contract says of the header.
    const status = p.in === 'header' && p.name.toLowerCase() === 'content-encoding' && op.requestBody !== null ? 415 : 400;
    cases.push(
      variant(`a ${p.in} parameter ${p.name} its schema refuses is refused with ${status}`, 'invalid', status, (request) => {
        if (p.in === 'query') return { ...request, query: [...request.query.filter(([name]) => name !== p.name), [p.name, broken]] };
        if (p.in === 'header') return { ...request, headers: { ...request.headers, [p.name]: broken } };
        // The other path parameters keep their valid values.
        let path = op.urlPath.replace(`{${p.name}}`, encodeURIComponent(broken));
        for (const other of op.parameters.filter((o) => o.in === 'path' && o !== p))
          path = path.replace(`{${other.name}}`, encodeURIComponent(planner.parameterValue(other)![0]!));
        return { ...request, path };
      }),
    );
  }
  const brokenBody = canHaveBody(op.method) ? planner.brokenJsonBody(op) : undefined;
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
  if (op.requestBody && canHaveBody(op.method) && !types.some((t) => t.includes('*') || t.startsWith('text/'))) {
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
    for (const op of first.filter((o) => o.defect === null)) {
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
  const paths = [...new Set(operations.map((op) => op.urlPath))];
  // A method another path of the contract takes at the same URL (`PUT /v4/{name}` for `/v4/accounts`) is not lacking.
  const lacking = (path: string) =>
    HTTP_METHODS.filter((m) => m !== 'options' && m !== 'head' && m !== 'trace').find(
      (m) => !operations.some((op) => op.method === m && mayMatch(op.urlPath, path)),
    );
  // A path one of whose operations is served: its valid request is the one sent with another method.
  const path = paths.find((p) => lacking(p) !== undefined && operations.some((op) => op.urlPath === p && op.defect === null));
  if (path === undefined) return cases;
  const ops = operations.filter((op) => op.urlPath === path && op.defect === null);
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

/** Whether two paths of the contract may name one URL: segment by segment, the same text, or a parameter in either. */
function mayMatch(a: string, b: string): boolean {
  const left = a.split('/');
  const right = b.split('/');
  return (
    left.length === right.length && left.every((segment, i) => segment === right[i] || segment.includes('{') || right[i]!.includes('{'))
  );
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
  return [...operations.flatMap((op) => operationCases(planner, op, operations)), ...routingCases(planner, operations)];
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
