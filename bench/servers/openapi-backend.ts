/**
 * Peer: openapi-backend on Express 5 as its README shows (`api.handleRequest` from one Express
 * middleware, handlers registered by operationId), with request validation (its default) and
 * response validation in a `postResponseHandler`, answering listPets with the bench's 20 animals.
 */
import express from 'express';
import type { Request, Response } from 'express';
import { OpenAPIBackend, type Context } from 'openapi-backend';
import { SPEC_PATH } from '../../src/contract/load-spec.js';
import { firstAnimals } from '../animals.js';

const animals = firstAnimals(20);
// apiRoot: the contract's paths sit under its server URL's /v1. quick: its check of the
// definition knows OpenAPI 3.0 only and refuses this 3.1 contract (then registers nothing); the
// request and response validators are still built, on first use.
const api = new OpenAPIBackend({ definition: SPEC_PATH, apiRoot: '/v1', quick: true });
await api.init();
api.registerSecurityHandler('BearerApiKey', (c: Context) => {
  const authorization = (c.request.headers as Record<string, unknown>).authorization;
  return typeof authorization === 'string' && authorization.startsWith('Bearer ');
});
api.register({
  listPets: () => ({ status: 200, body: animals }),
  validationFail: (c: Context) => ({
    status: 400,
    body: { code: 'invalid_request', message: JSON.stringify(c.validation.errors), status: 400 },
  }),
  unauthorizedHandler: () => ({ status: 401, body: { code: 'unauthorized', message: 'no bearer key', status: 401 } }),
  notFound: () => ({ status: 404, body: { code: 'not_found', message: 'not found', status: 404 } }),
  methodNotAllowed: () => ({ status: 405, body: { code: 'method_not_allowed', message: 'method not allowed', status: 405 } }),
  postResponseHandler: (c: Context, _req: Request, res: Response) => {
    const result = c.response as { status: number; body: unknown };
    const valid = api.validateResponse(result.body, c.operation, result.status);
    if (valid.errors) return res.status(502).json({ message: valid.errors });
    return res.status(result.status).json(result.body);
  },
});

const app = express();
app.use(express.json());
app.use((req, res) => api.handleRequest(req as never, req, res));
app.listen(Number(process.env.PORT), '127.0.0.1');
