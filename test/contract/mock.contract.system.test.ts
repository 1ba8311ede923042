import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operationInputs, responseProblems, unfitFields } from '../../src/contract/response-examples.js';
import type { MockServer } from '../../src/toolkit/mock/mock-server.js';
import { loadSpec, resolveRef } from '../../src/contract/load-spec.js';
import { listOperations } from '../../src/contract/operations.js';
import { exampleRequest } from '../support/example-requests.js';
import { mockTarget, startMockForTests } from '../support/mock-target.js';
import { ContractChecker } from './conformance.js';
import { defineContractSuite } from './define-suite.js';

let mock: MockServer;
beforeAll(async () => {
  mock = await startMockForTests();
}, 60_000);
afterAll(() => mock?.close());

defineContractSuite('the Prism mock (npm run mock)', () => mockTarget(mock.url));

// Every status of every operation, as a frontend developer asks for it (`Prefer: code=429`, no
// example named): the answer keeps the contract, agrees with itself as the lint rule
// animal-store/response-examples-consistent asks of every example (its own checks, from
// src/contract/response-examples.ts), and a 400 names only inputs the operation has.
describe('the mock answers Prefer: code=N as the lint rule expects, for every operation of the contract', () => {
  const doc = loadSpec();
  const checker = new ContractChecker(doc);
  const resolve = (value: unknown) => resolveRef<Record<string, unknown>>(doc, value);
  const cases = listOperations(doc).flatMap((op) => {
    const pathItem = doc.paths[op.path]!;
    const operation = pathItem[op.method] as { responses: Record<string, unknown> };
    const inputs = operationInputs(pathItem, operation, resolve);
    return Object.keys(operation.responses).map((status) => ({ operationId: op.operationId, op, inputs, status: Number(status) }));
  });

  it.each(cases)('$operationId, Prefer: code=$status', async ({ op, inputs, status }) => {
    const { path, init } = exampleRequest(doc, op);
    const response = await fetch(`${mock.url}${path}`, {
      ...init,
      headers: { Authorization: 'Bearer as_prod_mock', ...init.headers, Prefer: `code=${status}` },
    });
    const observed = { status: response.status, headers: response.headers, text: await response.text() };
    expect(observed.status).toBe(status);
    expect(checker.checkResponse(op.operationId, observed)).toEqual([]);
    const body = observed.text ? (JSON.parse(observed.text) as unknown) : undefined;
    expect(responseProblems({ status, headers: Object.fromEntries(observed.headers), body })).toEqual([]);
    expect(unfitFields(body, inputs), `the ${status} names inputs ${op.operationId} does not have`).toEqual([]);
  });
});
