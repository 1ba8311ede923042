import { describe, expect, it } from 'vitest';
import { firstAnimals } from '../../bench/animals.js';
import { PEERS, scaledSpec } from '../../bench/lineup.js';
import { startServer } from '../../scripts/support/server-process.js';

/**
 * The servers `npm run bench` compares the Animal Store with, each started as the bench starts it:
 * a peer that refuses the contract (a version it does not know, a keyword of a newer one) would
 * otherwise be found only by the next bench run, minutes in.
 */
describe("the bench's baselines and peers", () => {
  const servers = [...Object.values(PEERS), scaledSpec('contract-kit', 'contract-kit.ts', 4)];
  it.each(servers.map((spec) => [spec.name, spec] as const))('%s answers the list with the bench animals', async (_name, spec) => {
    const server = await startServer(spec);
    try {
      const response = await fetch(`${server.origin}${spec.probePath}`, { headers: spec.probeHeaders ?? {} });
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual(firstAnimals(20));
    } finally {
      await server.stop();
    }
  });
});
