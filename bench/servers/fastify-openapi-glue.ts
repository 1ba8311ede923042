/**
 * Reference peer: fastify 5 with fastify-openapi-glue as its README shows (the contract given as
 * `specification`, a service object with one method per operationId, a security handler for the
 * bearer scheme). Fastify validates requests with its own Ajv and serializes the response with
 * the contract's response schema (fast-json-stringify) instead of validating it.
 */
import Fastify from 'fastify';
import openapiGlue from 'fastify-openapi-glue';
import { SPEC_PATH } from '../../src/contract/load-spec.js';
import { firstAnimals } from '../animals.js';

const animals = firstAnimals(20);
// Ajv in non-strict mode: the contract's schemas carry OpenAPI's `example`, unknown to JSON Schema.
const app = Fastify({ logger: false, ajv: { customOptions: { strict: false } } });
// Errors in the contract's Error shape (fastify serializes them with the declared 4xx schema),
// set before the plugin so that its routes inherit it.
app.setErrorHandler((error: { statusCode?: number; message: string }, _request, reply) => {
  const status = error.statusCode ?? 500;
  void reply.status(status).send({ code: status === 401 ? 'unauthorized' : 'invalid_request', message: error.message, status });
});
await app.register(openapiGlue, {
  specification: SPEC_PATH,
  prefix: '/v1',
  serviceHandlers: { listPets: () => Promise.resolve(animals) },
  securityHandlers: {
    BearerApiKey: (request: { headers: { authorization?: string } }) =>
      request.headers.authorization?.startsWith('Bearer ')
        ? Promise.resolve()
        : Promise.reject(Object.assign(new Error('no bearer key'), { statusCode: 401 })),
  },
});
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
