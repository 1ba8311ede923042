import { listOperations } from 'contract-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operationInputs, responseProblems, unfitFields } from '../../lint/response-examples.js';
import { loadSpec, resolveRef } from '../../src/contract/load-spec.js';
import { exampleRequest } from '../support/example-requests.js';
import { mockTarget, startMockForTests, type MockServer } from '../support/mock-target.js';
import { ContractChecker } from './conformance.js';
import { defineContractSuite } from './define-suite.js';

let mock: MockServer;
beforeAll(async () => {
  mock = await startMockForTests();
}, 60_000);
afterAll(() => mock?.close());

defineContractSuite('the mock (npm run mock: contract-kit mock)', () => mockTarget(mock.url));

// Every status of every operation, as a frontend developer asks for it (`Prefer: code=429`, no
// example named): the answer keeps the contract, agrees with itself as the lint rule
// animal-store/response-examples-consistent asks of every example (its own checks, from
// src/contract/response-examples.ts), and a 400 names only inputs the operation has.
describe('the mock answers Prefer: code=N as the lint rule expects, for every operation of the contract', () => {
  const doc = loadSpec();
  const checker = new ContractChecker(doc);
  const resolve = (value: unknown) => resolveRef<Record<string, unknown>>(doc, value);
  const cases = listOperations(doc).flatMap((op) => {
    const inputs = operationInputs(doc.paths[op.path], op.raw, resolve);
    return Object.keys(op.responses).map((status) => ({ operationId: op.name, op, inputs, status: Number(status) }));
  });

  it.each(cases)('$operationId, Prefer: code=$status', async ({ op, inputs, status }) => {
    const { path, init } = exampleRequest(doc, op);
    const response = await fetch(`${mock.url}${path}`, {
      ...init,
      headers: { Authorization: 'Bearer as_prod_mock', ...init.headers, Prefer: `code=${status}` },
    });
    const observed = { status: response.status, headers: response.headers, text: await response.text() };
    expect(observed.status).toBe(status);
    expect(checker.checkResponse(op.name, observed)).toEqual([]);
    // A JSON body; a stream's (GET /pets/feed's events) is checked item by item by the checker.
    const json = /^application\/(?:[\w.-]+\+)?json\s*(?:;|$)/.test(response.headers.get('content-type') ?? '');
    const body = observed.text && json ? (JSON.parse(observed.text) as unknown) : undefined;
    expect(responseProblems({ status, headers: Object.fromEntries(observed.headers), body })).toEqual([]);
    expect(unfitFields(body, inputs), `the ${status} names inputs ${op.name} does not have`).toEqual([]);
  });
});
