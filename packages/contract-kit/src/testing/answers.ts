import { framingOf } from '../contract/openapi-3.2.js';
import type { Operation } from '../contract/operations.js';
import type { ContractChecker, ObservedResponse } from './checker.js';
import type { CredentialSource } from './credentials.js';
import type { PlannedRequest } from './requests.js';

/** Sending a planned request to the server under test, and what is wrong with its answer. */

/** A server that claims to serve the contract. */
export interface ConformanceTarget {
  /** Its URL with the contract's base path (`http://127.0.0.1:3000/v1`). */
  baseUrl: string;
  /** A valid credential for each security scheme of the contract the cases may use. */
  credential: CredentialSource;
  /** Violations a validating proxy in front of the server reported in a response; each fails the case. */
  reportedViolations?(headers: Headers): string[];
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

/** Whether fetch failed because the server closed a kept-alive connection just as the request went on it (no answer began). */
const closedUnderfoot = (error: unknown) =>
  error instanceof TypeError && /other side closed|ECONNRESET/.test(String((error.cause as Error | undefined)?.message ?? error.cause));

export async function send(target: ConformanceTarget, request: PlannedRequest): Promise<ObservedResponse> {
  const query = new URLSearchParams(request.query).toString();
  const attempt = () =>
    fetch(`${target.baseUrl}${request.path}${query ? `?${query}` : ''}`, {
      method: request.method,
      // JSON first where an answer has several media types (a mock picks by Accept).
      headers: { Accept: 'application/json, */*;q=0.8', ...request.headers },
      body: request.body ?? null,
      redirect: 'manual',
      // A server that never answers is a failure to report, not a wait without end.
      signal: AbortSignal.timeout(ANSWER_TIMEOUT_MS),
    });
  // A server closes an idle connection when its keep-alive ends: one that races a request is tried again, once.
  let response: Response;
  try {
    response = await attempt();
  } catch (error) {
    if (!closedUnderfoot(error)) throw error;
    response = await attempt();
  }
  return {
    status: response.status,
    headers: response.headers,
    ...(await readAnswerBody(response)),
    reported: target.reportedViolations?.(response.headers),
  };
}

/** How long a streamed answer is read at most before the reading stops: a stream may never end (a feed). */
const STREAM_READ_MS = 2_000;
/** How long a streamed answer may send nothing before the reading stops: a feed with nothing to tell waits. */
const STREAM_IDLE_MS = 500;

/**
 * The body of an answer; one of a sequential media type (a stream) read for STREAM_READ_MS at
 * most, or until it sends nothing for STREAM_IDLE_MS, saying whether it ended, and how it failed
 * if it did (the server cut it off).
 */
export async function readAnswerBody(response: Response): Promise<Pick<ObservedResponse, 'text' | 'stream'>> {
  const framing = framingOf(response.headers.get('content-type') ?? '');
  if (framing === undefined || !response.body) return { text: await response.text() };
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let stopped = false;
  const stop = () => {
    stopped = true;
    void reader.cancel().catch(() => undefined);
  };
  const timer = setTimeout(stop, STREAM_READ_MS);
  let idle = setTimeout(stop, STREAM_IDLE_MS);
  let text = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return { text, stream: { ended: !stopped } };
      text += value;
      clearTimeout(idle);
      idle = setTimeout(stop, STREAM_IDLE_MS);
    }
  } catch (error) {
    return { text, stream: { ended: false, failed: String((error as Error).cause ?? error) } };
  } finally {
    clearTimeout(timer);
    clearTimeout(idle);
  }
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
export function expectAnswer(
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
