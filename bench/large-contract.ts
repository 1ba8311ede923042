/**
 * A contract of many operations whose schemas look like a real API's: `resources` resources of
 * five operations each (list, create, get, replace, delete), every one with its own schemas that
 * refer to shared components (money, address, audit, error), nested objects, enums and patterns.
 * Made in code, so no multi-megabyte file is committed.
 */
import type { OpenApiDocument } from 'contract-kit';

/** Operations per resource: list, create, get, replace, delete. */
export const OPERATIONS_PER_RESOURCE = 5;

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: unknown) => ({ 'application/json': { schema } });
const errors = { '400': { $ref: '#/components/responses/BadRequest' }, '404': { $ref: '#/components/responses/NotFound' } };

/** The components every resource refers to. */
function sharedComponents(): NonNullable<OpenApiDocument['components']> {
  return {
    schemas: {
      Id: { type: 'string', pattern: '^[a-z]{2,8}_[0-9A-Za-z]{12,24}$', example: 'ord_0a1B2c3D4e5F' },
      Money: {
        type: 'object',
        additionalProperties: false,
        required: ['amount', 'currency'],
        properties: {
          amount: { type: 'string', pattern: '^-?[0-9]{1,15}(\\.[0-9]{1,4})?$' },
          currency: { type: 'string', pattern: '^[A-Z]{3}$' },
        },
      },
      Address: {
        type: 'object',
        additionalProperties: false,
        required: ['line1', 'country'],
        properties: {
          line1: { type: 'string', minLength: 1, maxLength: 200 },
          line2: { type: 'string', maxLength: 200 },
          city: { type: 'string', maxLength: 100 },
          postalCode: { type: 'string', pattern: '^[0-9A-Z -]{2,10}$' },
          country: { type: 'string', pattern: '^[A-Z]{2}$' },
        },
      },
      Audit: {
        type: 'object',
        required: ['createdAt'],
        properties: {
          createdAt: { type: 'string', format: 'date-time' },
          updatedAt: { type: 'string', format: 'date-time' },
          createdBy: { $ref: '#/components/schemas/Id' },
        },
      },
      Error: {
        type: 'object',
        required: ['code', 'message'],
        properties: {
          code: { type: 'string', enum: ['invalid_request', 'not_found', 'conflict', 'internal_error'] },
          message: { type: 'string' },
          details: {
            type: 'array',
            maxItems: 50,
            items: { type: 'object', required: ['field'], properties: { field: { type: 'string' }, message: { type: 'string' } } },
          },
        },
      },
    },
    responses: {
      BadRequest: { description: 'The request is not valid', content: json(ref('Error')) },
      NotFound: { description: 'Nothing has that id', content: json(ref('Error')) },
    },
  };
}

/** Resource `i`'s schemas: what a client sends (`New…`) and what it gets back. */
function resourceSchemas(i: number): Record<string, unknown> {
  const fields = {
    name: { type: 'string', minLength: 1, maxLength: 120 },
    status: { type: 'string', enum: ['draft', 'active', 'suspended', 'closed'] },
    price: ref('Money'),
    shipTo: ref('Address'),
    tags: { type: 'array', maxItems: 20, uniqueItems: true, items: { type: 'string', pattern: '^[a-z0-9-]{1,32}$' } },
    lines: {
      type: 'array',
      maxItems: 100,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['sku', 'quantity'],
        properties: {
          sku: { type: 'string', pattern: `^R${i}-[A-Z0-9]{4,12}$` },
          quantity: { type: 'integer', minimum: 1, maximum: 10_000 },
          unitPrice: ref('Money'),
          options: { type: 'object', additionalProperties: { type: 'string', maxLength: 64 }, maxProperties: 10 },
        },
      },
    },
    [`attribute${i}`]: { type: 'number', minimum: 0, maximum: i + 1 },
  };
  return {
    [`New${i}`]: { type: 'object', additionalProperties: false, required: ['name', 'price'], properties: fields },
    [`Resource${i}`]: {
      type: 'object',
      required: ['id', 'name', 'status', 'price', 'audit'],
      properties: { id: ref('Id'), ...fields, audit: ref('Audit') },
    },
  };
}

/** Resource `i`'s two paths and five operations. */
function resourcePaths(i: number): Record<string, unknown> {
  const one = ref(`Resource${i}`);
  const id = { name: 'id', in: 'path', required: true, schema: ref('Id') };
  return {
    [`/resources${i}`]: {
      get: {
        operationId: `listResources${i}`,
        parameters: [
          { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } },
          { name: 'cursor', in: 'query', schema: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' } },
          { name: 'status', in: 'query', schema: { type: 'string', enum: ['draft', 'active', 'suspended', 'closed'] } },
        ],
        responses: { '200': { description: 'A page', content: json({ type: 'array', items: one }) }, ...errors },
      },
      post: {
        operationId: `createResource${i}`,
        requestBody: { required: true, content: json(ref(`New${i}`)) },
        responses: { '201': { description: 'Created', content: json(one) }, ...errors },
      },
    },
    [`/resources${i}/{id}`]: {
      parameters: [id],
      get: { operationId: `getResource${i}`, responses: { '200': { description: 'The resource', content: json(one) }, ...errors } },
      put: {
        operationId: `replaceResource${i}`,
        requestBody: { required: true, content: json(ref(`New${i}`)) },
        responses: { '200': { description: 'Replaced', content: json(one) }, ...errors },
      },
      delete: { operationId: `deleteResource${i}`, responses: { '204': { description: 'Deleted' }, ...errors } },
    },
  };
}

/** A contract of `resources` × OPERATIONS_PER_RESOURCE operations. */
export function largeContract(resources: number): OpenApiDocument {
  const components = sharedComponents();
  const doc: OpenApiDocument = {
    openapi: '3.1.0',
    info: { title: `Large synthetic contract of ${resources * OPERATIONS_PER_RESOURCE} operations`, version: '1.0.0' },
    servers: [{ url: '/v1' }],
    paths: {},
    components,
  };
  for (let i = 0; i < resources; i++) {
    Object.assign(components.schemas!, resourceSchemas(i));
    Object.assign(doc.paths!, resourcePaths(i));
  }
  return doc;
}

/** A request to operation `op` (0-based, in the contract's order) of a large contract: valid, so that every check runs. */
export function requestTo(op: number): { method: string; path: string; body?: string } {
  const i = Math.floor(op / OPERATIONS_PER_RESOURCE);
  const body = JSON.stringify(newResource(i));
  const one = `/v1/resources${i}/ab_0123456789ab`;
  const requests = [
    { method: 'GET', path: `/v1/resources${i}?limit=20&status=active` },
    { method: 'POST', path: `/v1/resources${i}`, body },
    { method: 'GET', path: one },
    { method: 'PUT', path: one, body },
    { method: 'DELETE', path: one },
  ];
  return requests[op % OPERATIONS_PER_RESOURCE]!;
}

/** What resource `i`'s operations answer: a valid resource. */
export function storedResource(i: number): Record<string, unknown> {
  return { id: 'ab_0123456789ab', ...newResource(i), audit: { createdAt: '2026-01-02T03:04:05Z' } };
}

/** A valid body for resource `i`'s create and replace. */
function newResource(i: number): Record<string, unknown> {
  return {
    name: `Thing ${i}`,
    status: 'active',
    price: { amount: '12.50', currency: 'EUR' },
    shipTo: { line1: '1 Main Street', country: 'FR', postalCode: '75001' },
    tags: ['a', 'b'],
    lines: [{ sku: `R${i}-AB12`, quantity: 2 }],
  };
}
