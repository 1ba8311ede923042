// Guards the way src/service/http/middleware/validate.ts reaches express-openapi-validator: it sets
// `req.openapi` itself from the operation the request was matched to, instead of running the
// validator's metadata middleware. What it sets must be what that middleware would have set.
import { OpenApiContext } from 'express-openapi-validator/dist/framework/openapi.context.js';
import { OpenApiSpecLoader } from 'express-openapi-validator/dist/framework/openapi.spec.loader.js';
import { applyOpenApiMetadata } from 'express-openapi-validator/dist/middlewares/index.js';
import { SchemaPreprocessor } from 'express-openapi-validator/dist/middlewares/parsers/schema.preprocessor.js';
import { OpenApiValidator } from 'express-openapi-validator/dist/openapi.validator.js';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import express, { type ErrorRequestHandler } from 'express';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { RequestLocals } from '../../src/service/http/middleware/locals.js';
import { ADAPTED_VERSION, loadValidators, validate, VALIDATOR_OPTIONS } from '../../src/service/http/middleware/validate.js';
import { lengthBeforePattern } from '../../src/contract/length-before-pattern.js';
import { loadSpec } from '../../src/contract/load-spec.js';
import { basePathOf, listOperations } from '../../src/contract/operations.js';
import { ROOT } from '../support/run.js';

const doc = loadSpec();
const basePath = basePathOf(doc);

/** express-openapi-validator's own metadata middleware, built as its installMiddleware does. */
async function validatorsOwnMetadata() {
  const oav = new OpenApiValidator({ apiSpec: structuredClone(doc) as never, ...structuredClone(VALIDATOR_OPTIONS) });
  const spec = await new OpenApiSpecLoader({
    apiDoc: lengthBeforePattern(doc) as never,
    validateApiSpec: true,
    $refParser: oav.options.$refParser,
  }).load();
  const { apiDocRes } = new SchemaPreprocessor(spec.apiDoc, oav.ajvOpts.preprocessor, oav.options.validateResponses as never).preProcess();
  return applyOpenApiMetadata(new OpenApiContext(spec, undefined as never, false, false), apiDocRes);
}

describe('the one adapter that reaches into express-openapi-validator', () => {
  // validate.ts imports the validator's dist/ files (its request and response validators, spec
  // loader and schema preprocessor), which are not its public API and may change in any release.
  // The pin is exact, and this fails on any other version: re-run this file against the new one,
  // read the validator's changes to those files, then move both numbers together.
  it('runs against the exact version it was written for', () => {
    const installed = (
      JSON.parse(readFileSync(join(ROOT, 'node_modules/express-openapi-validator/package.json'), 'utf8')) as { version: string }
    ).version;
    const pinned = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> }).dependencies[
      'express-openapi-validator'
    ];
    expect({ installed, pinned }).toEqual({ installed: ADAPTED_VERSION, pinned: ADAPTED_VERSION });
  });
});

describe('the validator reached without its metadata middleware', () => {
  it.each([
    ['checked at start (development)', true],
    ['not checked at start (production), loaded without compiling the OpenAPI schema', false],
  ])('puts on req.openapi, for every operation, what the validator itself would: contract %s', async (_, checkSpec) => {
    const own = await validatorsOwnMetadata();
    const ours = await loadValidators(doc, { checkSpec });
    const operations = listOperations(doc);
    expect(operations.length).toBeGreaterThan(0);
    for (const op of operations) {
      // A concrete path for the operation: each path parameter given the value 7.
      const path = `${basePath}${op.path.replace(/\{[^}]+\}/g, '7')}`;
      const req = {
        method: op.method.toUpperCase(),
        path,
        url: path,
        originalUrl: path,
        baseUrl: '',
        app: { enabled: (setting: string) => setting === 'case sensitive routing' },
      } as unknown as Parameters<typeof own>[0];
      let error: unknown;
      own(req, {} as never, (e?: unknown) => (error = e));
      expect(error, op.operationId).toBeUndefined();
      const expected = (req as unknown as { openapi: Record<string, unknown> }).openapi;
      const meta = ours.metadata.get(`${op.method.toUpperCase()} ${op.path}`);
      expect(meta, op.operationId).toBeDefined();
      expect(meta!.expressRoute, op.operationId).toBe(expected.expressRoute);
      expect(meta!.openApiRoute, op.operationId).toBe(expected.openApiRoute);
      expect(meta!.schema, op.operationId).toEqual(expected.schema);
      expect(meta!.responseSchema, op.operationId).toEqual(expected._responseSchema);
      // Each load of a spec gets its own serial; the response validator checks only requests
      // that carry the serial of its own load (errors.test.ts shows a bad response stopped).
      expect(typeof expected.serial).toBe(typeof ours.serial);
      const names = [...op.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
      expect(expected.pathParams, op.operationId).toEqual(Object.fromEntries(names.map((name) => [name, '7'])));
    }
    // and nothing more: one entry per operation of the contract
    expect(ours.metadata.size).toBe(operations.length);
  });
});

describe('the contract check that production skips at start', () => {
  it('passes on openapi.yaml, as the validator checks it at start outside production', async () => {
    await expect(loadValidators(doc, { checkSpec: true })).resolves.toHaveProperty('serial');
  });

  it('fails on a contract that is not valid OpenAPI', async () => {
    const broken = structuredClone(doc) as unknown as { paths: Record<string, Record<string, unknown>> };
    (broken.paths['/pets']!.get as Record<string, unknown>).responses = 'none';
    await expect(loadValidators(broken as never, { checkSpec: true })).rejects.toThrow(/apiDoc was invalid/);
  });
});

describe('the validator middleware, through HTTP', () => {
  /**
   * An app with just the validator: the step before it sets what matchOperation and
   * strictParameters would (the operation, the decoded path parameters); the step after it
   * answers with what the request's locals hold then.
   */
  async function appWithValidator({ builtOnFirstRequest = false } = {}) {
    const operations = listOperations(doc);
    const app = express();
    app.set('query parser', 'simple');
    app.use((req, res, next) => {
      const [path, operationId] = req.path === `${basePath}/pets` ? ['/pets', 'listPets'] : ['/pets/{petId}', 'getPet'];
      const locals = new RequestLocals('test', pino({ level: 'silent' }));
      locals.operation = operations.find((op) => op.operationId === operationId);
      locals.pathParams = path === '/pets' ? {} : { petId: req.path.split('/').pop()! };
      res.locals = locals;
      next();
    });
    // Built when the first request comes, that request finds the validators still being built.
    let validator = builtOnFirstRequest ? undefined : validate(doc, operations, { checkSpec: true });
    app.use((req, res, next) => {
      validator ??= validate(doc, operations, { checkSpec: true });
      validator(req, res, next);
    });
    // In a header, not a JSON body: the response validator checks bodies sent with res.json.
    app.use((_req, res) => {
      res.set('X-Path-Params', JSON.stringify((res.locals as RequestLocals).pathParams)).end();
    });
    const onError: ErrorRequestHandler = (error: { status?: number; message: string }, _req, res, _next) => {
      res.status(error.status ?? 500).json({ message: error.message });
    };
    app.use(onError);
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
  }

  it('refuses an invalid request that comes while the validators are still being built', async () => {
    const { server, origin } = await appWithValidator({ builtOnFirstRequest: true });
    try {
      // This request waits for the validators, and the validator's refusal (a throw) must reach
      // the error handler from there.
      const response = await fetch(`${origin}${basePath}/pets?bogus=1`);
      expect(response.status).toBe(400);
      expect(((await response.json()) as { message: string }).message).toMatch(/bogus/);
    } finally {
      server.close();
    }
  });

  it("leaves the request's decoded path parameters as strings (the validator coerces its own copy)", async () => {
    const { server, origin } = await appWithValidator();
    try {
      const response = await fetch(`${origin}${basePath}/pets/7`);
      expect(response.status).toBe(200);
      expect(JSON.parse(response.headers.get('x-path-params')!)).toEqual({ petId: '7' });
    } finally {
      server.close();
    }
  });
});
