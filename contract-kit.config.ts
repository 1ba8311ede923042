/**
 * contract-kit's configuration for the Animal Store: the plugins of `npm run generate` (contract-kit
 * generate): the storage gate and the client package (scripts/codegen/); and what `npm run mock` (contract-kit mock) adds
 * to openapi.yaml so that the mock answers as the service does. The server's options and steps are
 * the service's own (src/service/http/app.ts), so the mock refuses what it refuses, in its words.
 */
import { isDeepStrictEqual } from 'node:util';
import cors from 'cors';
import { crossOriginOf, resolveRef, type MockConfig, type OpenApiDocument, type Operation } from 'contract-kit';
import { BODY_LIMITS } from './src/contract/body-limits.js';
import { loadSpec } from './src/contract/load-spec.js';
import { namedExamples, unfitFields, type ExampleObject } from './lint/response-examples.js';
import { errorBody, problemOf } from './src/service/http/error-body.js';
import { REALM } from './src/service/http/middleware/authenticate.js';
import { canonicalPetNames } from './src/service/http/pet-name.js';
import { clientPackage } from './scripts/codegen/client-package.js';
import { petStorageGate } from './scripts/codegen/pet-storage-check.js';

/** The headers the service sends on every answer, refusals included; the mock sends the contract's examples of them. */
const EVERY_ANSWER = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'X-Request-Id'];

type Json = Record<string, unknown>;

/** The contract's example of each header of EVERY_ANSWER it declares. */
function everyAnswer(contract: OpenApiDocument): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name of EVERY_ANSWER) {
    const example = resolveRef<{ example?: unknown } | undefined>(contract, contract.components?.headers?.[name])?.example;
    if (typeof example === 'string' || typeof example === 'number') headers[name] = String(example);
  }
  return headers;
}

/** The example of the operation's response that Prism answered with, found by its value. */
function exampleSent(contract: OpenApiDocument, op: Operation, status: number, body: unknown): ExampleObject | undefined {
  const responses = (op.raw.responses ?? {}) as Json;
  const response = resolveRef<Json | undefined>(contract, responses[String(status)]);
  const resolve = (value: unknown) => resolveRef<unknown>(contract, value);
  return response && namedExamples(response, resolve).find(([, example]) => isDeepStrictEqual(example.value, body))?.[1];
}

const mock: MockConfig = {
  server: {
    errors: errorBody,
    problemOf,
    realm: REALM,
    bodyLimitBytes: BODY_LIMITS.limitBytes,
    maxProperties: BODY_LIMITS.maxProperties,
    maxDepth: BODY_LIMITS.maxDepth,
    allErrorsUpToBytes: BODY_LIMITS.limitBytes,
    // The service's steps but the rate limit and the Idempotency-Key, which need its store.
    steps: { beforeHandler: (op) => ({ canonicalPetNames: canonicalPetNames(loadSpec(), op) }) },
  },
  // Frontend teams call the mock from pages of any origin, and read the headers the contract declares.
  use: [cors({ origin: true, exposedHeaders: crossOriginOf(loadSpec()).responseHeaders, maxAge: 600 })],
  headers({ contract, operation, status, body, headers }) {
    const set: Record<string, string | number | null> = {};
    for (const [name, value] of Object.entries(everyAnswer(contract))) if (headers[name.toLowerCase()] === undefined) set[name] = value;
    // The headers an example goes with (its x-headers: a 429's X-RateLimit-Remaining 0 and Retry-After).
    const example = operation && body !== undefined ? exampleSent(contract, operation, status, body) : undefined;
    Object.assign(set, example?.['x-headers']);
    // Prism leaves out the challenge of a 401 asked for (Prefer: code=401); the server sends it on every 401.
    if (status === 401 && headers['www-authenticate'] === undefined) set['WWW-Authenticate'] = `Bearer realm="${REALM}"`;
    // Prism makes up this optional header; the service sends it only on a replay, which a mock storing nothing never makes.
    if (set['Idempotent-Replayed'] === undefined) set['Idempotent-Replayed'] = null;
    return set;
  },
  // A request naming no example gets the first that names only inputs the operation has (a 400 of GET /pets, a query parameter).
  example({ operation, examples }) {
    const inputs = { parameters: operation.parameters, hasRequestBody: operation.requestBody !== null };
    return examples.find(({ value }) => unfitFields(value, inputs).length === 0)?.name;
  },
};

export default {
  mock,
  generate: { plugins: [petStorageGate, clientPackage] },
  // The page npm run docs renders, and the server serves at /docs with its compressed copies.
  docs: { template: 'src/contract/reference-page.hbs', compress: true },
};
