import { loadSpec, type OpenApiDocument } from '../../src/contract/load-spec.js';
import { listOperations } from 'contract-kit';

/** The operation {@link withAddedOperation} adds: on a path of its own, so it never meets one of the contract's. */
export const ADDED = { operationId: 'removeAddedByTest', method: 'delete', path: '/added-by-test/{petId}' } as const;

/** A response of `components/responses`, by reference. */
const ref = (name: string) => ({ $ref: `#/components/responses/${name}` });
/** The headers every response declares (redocly.yaml's response-contains-header). */
export const RESPONSE_HEADERS = Object.fromEntries(
  ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'X-Request-Id'].map((name) => [
    name,
    { $ref: `#/components/headers/${name}` },
  ]),
);

/**
 * A copy of the contract (`doc`, by default openapi.yaml) with one more operation, as a
 * designer would add one: `DELETE /added-by-test/{petId}`, answering 204 without content, or
 * the shared error responses. Whatever operations the contract gains, this one stays new.
 */
export function withAddedOperation(doc: OpenApiDocument = loadSpec()): OpenApiDocument {
  const copy = structuredClone(doc);
  const taken = listOperations(copy).find((op) => op.name === ADDED.operationId || op.path === ADDED.path);
  if (taken) throw new Error(`the contract has ${taken.name} at ${taken.path}: rename ADDED in test/support/added-operation.ts`);
  copy.paths[ADDED.path] = {
    [ADDED.method]: {
      operationId: ADDED.operationId,
      summary: 'Remove an animal (added by a test)',
      description: 'An operation the contract does not have, added by the tests.',
      tags: ['Pets'],
      parameters: [{ $ref: '#/components/parameters/PetId' }],
      responses: {
        '204': { description: 'Removed.', headers: RESPONSE_HEADERS },
        '400': ref('BadRequest'),
        '401': ref('Unauthorized'),
        '429': ref('TooManyRequests'),
        '500': ref('InternalError'),
        '503': ref('ServiceUnavailable'),
      },
    },
  };
  return copy;
}
