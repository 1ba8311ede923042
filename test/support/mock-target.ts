import { startMockServer, type MockServer } from '../../src/toolkit/mock/mock-server.js';
import type { ContractTarget, Scenario } from '../contract/cases.js';

/** Starts `npm run mock`'s server on a free port for a test file. */
export async function startMockForTests(): Promise<MockServer> {
  return startMockServer({ port: 0, log: null });
}

/** The mock as a contract target: scenarios it cannot reach by itself are asked for with `Prefer`. */
export function mockTarget(baseUrl: string): ContractTarget {
  const auth = { Authorization: 'Bearer as_prod_mock' };
  const headers: Record<Scenario, Record<string, string>> = {
    authorized: auth,
    unauthenticated: {},
    notFound: { ...auth, Prefer: 'code=404' },
    rateLimited: { ...auth, Prefer: 'code=429, example=RateLimitedExample' },
  };
  return { baseUrl, headersFor: (scenario) => Promise.resolve(headers[scenario]) };
}
