// The service reaches express-openapi-validator through its public middleware only
// (src/service/http/middleware/validate.ts): what production skips at start, the contract check,
// must still refuse a contract that is not valid OpenAPI when it runs.
import type { AddressInfo } from 'node:net';
import express, { type ErrorRequestHandler } from 'express';
import { describe, expect, it } from 'vitest';
import { validate } from '../../src/service/http/middleware/validate.js';
import { loadSpec, type OpenApiDocument } from '../../src/contract/load-spec.js';
import { basePathOf } from '../../src/contract/operations.js';

const doc = loadSpec();
const basePath = basePathOf(doc);

/** GET `path` from an app that has only the validator, on `contract`; its status and error message. */
async function throughValidator(contract: OpenApiDocument, path: string, checkSpec: boolean) {
  const app = express();
  app.get(`${basePath}/pets`, ...validate(contract, { checkSpec }), (_req, res) => void res.status(200).json([]));
  const onError: ErrorRequestHandler = (error: { status?: number; message: string }, _req, res, _next) => {
    res.status(error.status ?? 500).json({ message: error.message });
  };
  app.use(onError);
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  try {
    const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`);
    return { status: response.status, message: response.status === 200 ? '' : ((await response.json()) as { message: string }).message };
  } finally {
    server.close();
  }
}

describe('the contract check that production skips at start', () => {
  it('passes on openapi.yaml', async () => {
    expect(await throughValidator(doc, `${basePath}/pets`, true)).toEqual({ status: 200, message: '' });
  });

  it('refuses every request on a contract that is not valid OpenAPI, saying why', async () => {
    const broken = structuredClone(doc);
    (broken.paths['/pets']!.get as Record<string, unknown>).responses = 'none';
    const answer = await throughValidator(broken, `${basePath}/pets`, true);
    expect(answer.status).toBe(500);
    expect(answer.message).toMatch(/apiDoc|responses/);
  });
});

describe('the validator on the first request', () => {
  it('refuses an invalid request that comes while the contract is still being loaded', async () => {
    expect(await throughValidator(doc, `${basePath}/pets?bogus=1`, false)).toMatchObject({
      status: 400,
      message: expect.stringMatching(/bogus/),
    });
  });
});
