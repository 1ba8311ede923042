import type { TestServer } from '../support/test-server.js';
import type { ContractTarget } from './cases.js';

/** The real server as a contract target: real keys, and a key that is over its limit for 429. */
export async function serverTarget(server: TestServer): Promise<ContractTarget> {
  const key = await server.newKey('pro');
  return {
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
}
