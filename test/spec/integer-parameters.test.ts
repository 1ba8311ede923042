import { listOperations } from 'contract-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSpec, resolveRef } from '../../src/contract/load-spec.js';
import { BASE_PATH } from '../support/base-path.js';
import { exampleRequest } from '../support/example-requests.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

const doc = loadSpec();

/** Every integer parameter in the query or the path, with its operation. */
const integerParameters = listOperations(doc).flatMap((op) =>
  op.parameters
    .filter((p) => (p.in === 'query' || p.in === 'path') && p.type === 'integer')
    .map((parameter) => ({ op, parameter, label: `${op.name} ${parameter.in}.${parameter.name}` })),
);

let server: TestServer;
let key: string;
beforeAll(async () => {
  server = await startTestServer();
  key = await server.newKey('business');
});
afterAll(() => server?.close());

/** The details of the service's answer to the operation's example request with the parameter written `value`. */
async function detailsOf({ op, parameter }: (typeof integerParameters)[number], value: string) {
  const request = exampleRequest(doc, op, { field: `${parameter.in}.${parameter.name}`, value });
  const response = await fetch(`${server.origin}${BASE_PATH}${request.path}`, {
    ...request.init,
    headers: { ...request.init.headers, Authorization: `Bearer ${key}` },
  });
  const body = (await response.json()) as { details?: { field: string; message: string }[] };
  return { status: response.status, details: body.details ?? [] };
}

// The contract must say how such an integer is written, since the service refuses every other
// spelling that a validator's coercion would read as a number: each parameter's description says
// so, and the spellings it gives as refused are the ones the service refuses.
describe('integer parameters in the query and the path', () => {
  it('are in the contract (limit, petId)', () => {
    expect(integerParameters.map((p) => p.label)).toEqual(expect.arrayContaining(['listPets query.limit', 'getPet path.petId']));
  });

  it.each(integerParameters)('$label: its description says decimal digits only, and each spelling it refuses is refused', async (entry) => {
    const { op, parameter } = entry;
    const declared = [...((doc.paths[op.path]!.parameters as unknown[]) ?? []), ...((op.raw.parameters as unknown[]) ?? [])]
      .map((raw) => resolveRef<{ name: string; in: string; description?: string }>(doc, raw))
      .find((p) => p.name === parameter.name && p.in === parameter.in);
    const description = declared?.description ?? '';
    expect(description).toMatch(/decimal digits/);
    // The spellings named before "is refused" (the status named after it is no spelling).
    const refused = [...description.split(' is refused')[0]!.matchAll(/`([^`]+)`/g)].map((match) => match[1]!);
    expect(refused.length).toBeGreaterThanOrEqual(4);
    for (const spelling of refused) {
      expect(await detailsOf(entry, spelling), spelling).toEqual({
        status: 400,
        details: [{ field: `${entry.parameter.in}.${entry.parameter.name}`, message: 'must be an integer written in decimal digits' }],
      });
    }
    // The example passes the check (an unknown pet's 404 is an answer after it).
    expect((await detailsOf(entry, String(entry.parameter.examples[0]))).status).not.toBe(400);
  });
});
