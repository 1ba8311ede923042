// What a designer meets after adding an operation to openapi.yaml and running `npm run generate`:
// the stub answers 501 and says, at start, in the log and in the tests, which file to write;
// then a handler that answers 204 is written as `return { status: 204 }`.
import { notImplemented } from 'contract-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handlers } from '../../generated/handlers.js';
import { notImplementedHint } from '../../src/service/http/error-body.js';
import type { OperationId } from '../../src/service/http/handler-types.js';
import { ContractChecker, type ObservedResponse } from '../contract/conformance.js';
import { ADDED, withAddedOperation } from '../support/added-operation.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

const spec = withAddedOperation();
const checker = new ContractChecker(spec);
const id = ADDED.operationId as OperationId;

/** A DELETE of the added operation, with what a client saw. */
async function remove(server: TestServer, key: string, petId: number): Promise<ObservedResponse> {
  const response = await fetch(`${server.baseUrl}/added-by-test/${petId}`, {
    method: 'DELETE',
    headers: { Authorization: `Bearer ${key}` },
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

interface LogEntry {
  level: number;
  msg: string;
}
const WARN = 40;
const warnings = (lines: string[]) => lines.map((line) => JSON.parse(line) as LogEntry).filter((entry) => entry.level === WARN);
/** The kit's warning at start of the operations that answer 501 (other stubs the contract may have are named in it too). */
const startWarning = (lines: string[]) => warnings(lines).find((entry) => entry.msg.includes('answers 501'));

describe('an operation the contract gains, while its handler is the stub npm run generate writes', () => {
  const logLines: string[] = [];
  let server: TestServer;
  let key: string;
  beforeAll(async () => {
    server = await startTestServer({
      spec,
      handlers: { ...handlers, [id]: notImplemented(id, `src/service/http/handlers/${id}.ts`) },
      logLines,
    });
    key = await server.newKey('pro');
  });
  afterAll(() => server?.close());

  it('is named at start, with the file to write', () => {
    expect(startWarning(logLines)?.msg).toContain(
      `${ADDED.operationId} (${ADDED.method.toUpperCase()} ${ADDED.path}) is not implemented yet: it answers 501 until src/service/http/handlers/${ADDED.operationId}.ts is written`,
    );
  });

  it('answers 501 not_implemented, which the contract tests report as the file to write, not as an undeclared status', async () => {
    const observed = await remove(server, key, 1);
    expect(observed.status).toBe(501);
    expect(JSON.parse(observed.text)).toEqual({
      code: 'not_implemented',
      message: `${ADDED.operationId} is not implemented yet.`,
      status: 501,
    });
    expect(checker.checkResponse(ADDED.operationId, observed)).toEqual([notImplementedHint(ADDED.operationId)]);
    expect(notImplementedHint(ADDED.operationId)).toBe(
      `${ADDED.operationId} is not implemented: write src/service/http/handlers/${ADDED.operationId}.ts (see generated/handlers.ts)`,
    );
    expect(warnings(logLines).map((entry) => entry.msg)).toContain(notImplementedHint(ADDED.operationId));
  });

  it('is still an undeclared status when a written handler answers 501 with another code', () => {
    const observed = { status: 501, headers: new Headers(), text: '{"code":"internal_error","message":"x","status":501}' };
    expect(checker.checkResponse(ADDED.operationId, observed)).toEqual([
      expect.stringMatching(/^status 501 is not declared for removeAddedByTest/),
    ]);
  });
});

describe('an operation the contract gains, once its handler is written', () => {
  const logLines: string[] = [];
  let server: TestServer;
  let key: string;
  beforeAll(async () => {
    // What a developer writes for a response without content: no body (test/types/handler-types.ts
    // proves it compiles for such a response; this operation is not in the generated types).
    const written = async () => ({ status: 204 as const });
    server = await startTestServer({ spec, handlers: { ...handlers, [id]: written }, logLines });
    key = await server.newKey('pro');
  });
  afterAll(() => server?.close());

  it('is not named at start', () => {
    expect(startWarning(logLines)?.msg ?? '').not.toContain(ADDED.operationId);
  });

  it('answers { status: 204 } with no body and no Content-Type, inside the contract', async () => {
    const observed = await remove(server, key, 1);
    expect(observed.status).toBe(204);
    expect(observed.text).toBe('');
    expect(observed.headers.get('content-type')).toBeNull();
    expect(checker.checkResponse(ADDED.operationId, observed)).toEqual([]);
  });
});
