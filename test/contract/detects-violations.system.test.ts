import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSpec } from '../../src/contract/load-spec.js';
import { mockTarget, startMockForTests, type MockServer } from '../support/mock-target.js';
import { startTamperingProxy, withoutErrorStatus, type Intercepted } from '../support/tampering-proxy.js';
import { ContractChecker } from './conformance.js';
import { runContractCases } from './run-cases.js';

// The contract suite is only worth something if it fails against a server that breaks the
// contract. Each test puts a proxy that breaks it in one known way in front of the mock.

let mock: MockServer;
const checker = new ContractChecker(loadSpec());
beforeAll(async () => {
  mock = await startMockForTests();
}, 60_000);
afterAll(() => mock?.close());

/** Runs every case against a tampered mock; returns the failure message of each case, or null. */
async function runAgainst(tamper: (r: Intercepted) => Intercepted): Promise<Map<string, string | null>> {
  const proxy = await startTamperingProxy(mock.url, tamper);
  let outcomes: Map<string, string | null>;
  try {
    outcomes = await runContractCases(mockTarget(proxy.baseUrl), checker);
  } finally {
    await proxy.close();
  }
  return outcomes;
}

describe('the contract suite', () => {
  it('fails every case against a server that omits X-RateLimit-Remaining', async () => {
    const outcomes = await runAgainst((r) => {
      delete r.headers['x-ratelimit-remaining'];
      return r;
    });
    for (const [name, failure] of outcomes) {
      expect(failure, name).toMatch(/missing header X-RateLimit-Remaining/);
    }
  });

  it('fails the error cases against a server whose Error body lacks status', async () => {
    const outcomes = await runAgainst(withoutErrorStatus);
    expect(outcomes.get('listPets: a request without credentials is refused with 401')).toMatch(/must have required property 'status'/);
    expect(outcomes.get('createPet: a body of a media type it does not declare is refused with 415')).toMatch(
      /must have required property 'status'/,
    );
    expect(outcomes.get('listPets: a valid request (GET /pets) is answered as the contract declares')).toBeNull();
  });

  it('fails the getPet cases against a server that drops Sunset', async () => {
    const outcomes = await runAgainst((r) => {
      delete r.headers.sunset;
      return r;
    });
    for (const [name, failure] of outcomes) {
      if (name.startsWith('getPet')) expect(failure, name).toMatch(/Sunset/);
      else expect(failure, name).toBeNull();
    }
  });

  it('fails against a server that answers a status the operation does not declare', async () => {
    const outcomes = await runAgainst((r) => (r.status === 201 ? { ...r, status: 200 } : r));
    expect(outcomes.get('createPet: a valid request (POST /pets) is answered as the contract declares')).toMatch(
      /status 200 is not declared for createPet/,
    );
    expect(outcomes.get('createPet accepts an Idempotency-Key')).toMatch(/expected status 201, got 200/);
  });
});
