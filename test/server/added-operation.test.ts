// What a designer meets after adding an operation to openapi.yaml and running `npm run generate`:
// the stub answers 501 and says, at start, in the log and in the tests, which file to write;
// then a handler that answers 204 is written as `return { status: 204 }`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handlers } from '../../generated/handlers.js';
import { notImplementedHint } from '../../src/service/http/errors/not-implemented-error.js';
import type { OperationId } from '../../src/service/http/handler-types.js';
import { notImplemented } from '../../src/service/http/not-implemented.js';
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
  unimplemented?: string[];
}
const WARN = 40;
const warnings = (lines: string[]) => lines.map((line) => JSON.parse(line) as LogEntry).filter((entry) => entry.level === WARN);
/** The warning at start (other stubs the contract may have meanwhile are named in it too). */
const startWarning = (lines: string[]) => warnings(lines).find((entry) => entry.unimplemented !== undefined);

describe('an operation the contract gains, while its handler is the stub npm run generate writes', () => {
  const logLines: string[] = [];
  let server: TestServer;
  let key: string;
  beforeAll(async () => {
    server = await startTestServer({ spec, handlers: { ...handlers, [id]: notImplemented(id) }, logLines });
    key = await server.newKey('pro');
  });
  afterAll(() => server?.close());

  it('is named at start, with the file to write', () => {
    const warning = startWarning(logLines);
    expect(warning?.unimplemented).toContain(ADDED.operationId);
    expect(warning?.msg).toContain(
      `${ADDED.operationId} is not implemented: write src/service/http/handlers/${ADDED.operationId}.ts (see generated/handlers.ts)`,
    );
    expect(warning?.msg).toMatch(/\. Until then each answers 501 not_implemented\.$/);
  });

  it('answers 501 not_implemented, which the contract tests report as the file to write, not as an undeclared status', async () => {
    const observed = await remove(server, key, 1);
    expect(observed.status).toBe(501);
    expect(JSON.parse(observed.text)).toEqual({
      code: 'not_implemented',
      message: `Operation ${ADDED.operationId} is described by the contract but not implemented yet.`,
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
    expect(startWarning(logLines)?.unimplemented ?? []).not.toContain(ADDED.operationId);
  });

  it('answers { status: 204 } with no body and no Content-Type, inside the contract', async () => {
    const observed = await remove(server, key, 1);
    expect(observed.status).toBe(204);
    expect(observed.text).toBe('');
    expect(observed.headers.get('content-type')).toBeNull();
    expect(checker.checkResponse(ADDED.operationId, observed)).toEqual([]);
  });
});
