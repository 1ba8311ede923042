import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serve } from './serve.js';

type Served = Awaited<ReturnType<typeof serve>>;
let groups: Served;

beforeAll(async () => {
  groups = await serve('validator-groups-3.1.yaml', {
    handlers: {
      getItem: () => ({ status: 204 }),
      getA: () => ({ status: 200 }),
      getB: () => ({ status: 200, body: {} }),
      addShape: () => ({ status: 204 }),
    },
    // Each first request makes its validator, as a request before the warm-up gets to it does.
    warmUp: 'lazy',
    // Paths enough after the fixture's four that those four share a validator.
    edit: (contract) => {
      for (let i = 0; i < 64; i++)
        contract.paths![`/filler${i}`] = { get: { operationId: `getFiller${i}`, responses: { '204': { description: 'None.' } } } };
    },
  });
});
afterAll(() => groups.close());

describe('operations of paths that share a validator', () => {
  it("are served by theirs when one of the paths brings the contract's paths along, a path the validator cannot read among them", async () => {
    expect((await groups.fetch('/b?n=1')).status).toBe(200);
    expect((await groups.fetch('/b?n=x')).status).toBe(400);
    expect((await groups.fetch('/Items(1)')).status).toBe(204);
    expect(
      (await groups.fetch('/shapes', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"kind":"Dot"}' })).status,
    ).toBe(204);
  });

  it('name a property of a body as it is named, whatever the URL the validator is shown', async () => {
    const answer = await groups.fetch('/shapes', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{"kind":"Line"}',
    });
    expect(answer.status).toBe(400);
    expect(((await answer.json()) as { errors: { pointer?: string }[] }).errors).toEqual([expect.objectContaining({ pointer: '/op1' })]);
  });
});
