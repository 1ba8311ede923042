import { afterAll, beforeAll } from 'vitest';
import { startTestServer, type TestServer } from '../support/test-server.js';
import type { ContractTarget } from './cases.js';
import { defineContractSuite } from './define-suite.js';

let server: TestServer;
let target: ContractTarget;

beforeAll(async () => {
  server = await startTestServer();
  const key = await server.newKey('pro');
  target = {
    baseUrl: server.baseUrl,
    async headersFor(scenario): Promise<Record<string, string>> {
      if (scenario === 'unauthenticated') return {};
      if (scenario === 'rateLimited') {
        // A key allowed one request a minute, which it has just used.
        const limited = await server.newKey('enterprise', { perMinute: 1, perDay: 100 });
        await fetch(`${server.baseUrl}/pets`, { headers: { Authorization: `Bearer ${limited}` } });
        return { Authorization: `Bearer ${limited}` };
      }
      return { Authorization: `Bearer ${key}` };
    },
  };
});
afterAll(() => server?.close());

defineContractSuite('the real server (in-process, SQLite)', () => target);
