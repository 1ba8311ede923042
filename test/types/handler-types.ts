// Type-level tests, checked by `npm run check` (tsc). Each @ts-expect-error proves that the line
// after it does not compile; if it ever compiled, tsc would fail on the unused directive.
import type { components } from '../../generated/openapi.js';
import { handlers } from '../../generated/handlers.js';
import type { Handler, Handlers, ResultOf } from '../../src/service/http/handler-types.js';

// An animal with every field Pet requires, whatever the contract adds (its values are never read: tsc alone runs this file).
const pet = { ...({} as components['schemas']['Pet']), id: 1, name: 'Rex', categoryId: 3, status: 'available' as const };

// What the contract allows compiles.
export const fine: Handler<'listPets'> = async ({ query }) => ({ status: 200, body: [pet], headers: { Link: `<${query.limit ?? 20}>` } });
export const fineCreate: Handler<'createPet'> = async ({ body, headers }) => ({
  status: 201,
  body: { ...pet, name: body.name + (headers['Idempotency-Key'] ?? '') },
});

// A status the operation does not declare.
// @ts-expect-error listPets has no 201
export const wrongStatus: Handler<'listPets'> = async () => ({ status: 201, body: [pet] });

// A body that is not the declared one.
// @ts-expect-error a Pet without id is not a Pet
export const wrongBody: Handler<'createPet'> = async () => ({ status: 201, body: { name: 'Rex', categoryId: 3, status: 'available' } });

// A status value outside PetStatus.
// @ts-expect-error 'lost' is not a PetStatus
export const wrongEnum: Handler<'getPet'> = async () => ({ status: 200, body: { ...pet, status: 'lost' } });

// A header the response does not declare.
// @ts-expect-error createPet's 201 declares no Location header
export const wrongHeader: Handler<'createPet'> = async () => ({ status: 201, body: pet, headers: { Location: '/v1/pets/1' } });

// Inputs are typed from the contract: petId is a number, listPets has no `name` parameter.
export const inputs: Handler<'getPet'> = async ({ path }) => {
  // @ts-expect-error petId is a number
  const id: string = path.petId;
  return { status: 200, body: { ...pet, id: Number(id) } };
};
export const noSuchQuery: Handler<'listPets'> = async ({ query }) => {
  // @ts-expect-error listPets has no name parameter
  const name: string = query.name;
  return { status: 200, body: [{ ...pet, name }] };
};

// An operation without a handler.
// @ts-expect-error getPet is missing
export const incomplete: Handlers = { listPets: handlers.listPets, createPet: handlers.createPet };

// A response without content, written as openapi-typescript writes a `'204'` with headers and no
// content (no operation of the contract has one yet): `{ status: 204 }`, no body to write.
type RemovalResponses = {
  204: { headers: { 'X-Request-Id': components['headers']['X-Request-Id']; [name: string]: unknown }; content?: never };
  404: components['responses']['GetPetNotFound'];
};
export const noContent: ResultOf<RemovalResponses> = { status: 204 };
export const noContentWithHeader: ResultOf<RemovalResponses> = { status: 204, headers: { 'X-Request-Id': 'abc' } };
export const notFound: ResultOf<RemovalResponses> = { status: 404, body: { code: 'not_found', message: 'Pet 1 not found.', status: 404 } };
// @ts-expect-error a 204 has no body
export const bodyOnNoContent: ResultOf<RemovalResponses> = { status: 204, body: pet };
// @ts-expect-error the 204 declares no Location header
export const headerOnNoContent: ResultOf<RemovalResponses> = { status: 204, headers: { Location: '/v1/pets/1' } };
// @ts-expect-error a 404 has the Error body
export const noBodyOnNotFound: ResultOf<RemovalResponses> = { status: 404 };
