import createClient from 'openapi-fetch';
import type { paths } from '@animal-store/client';
import { conformanceCases, ConformanceViolation, type ConformanceTarget } from 'contract-kit/testing';
import type { OpenApiDocument } from '../../src/contract/load-spec.js';
import { streamedOperations } from '../support/streamed-operations.js';
import type { ContractChecker, ObservedResponse } from './conformance.js';

/** The situations the suite needs a target to produce. */
export type Scenario = 'authorized' | 'unauthenticated' | 'notFound' | 'rateLimited';

/** A server under test: the Prism mock, the real server, or anything that claims the contract. */
export interface ContractTarget {
  /** Base URL with the version segment, e.g. `http://127.0.0.1:4010/v1`. */
  baseUrl: string;
  /**
   * Headers that make the next request end in `scenario`: an API key for `authorized`, none for
   * `unauthenticated`, a key that is over its limit for `rateLimited` (the mock uses `Prefer`).
   */
  headersFor(scenario: Scenario): Promise<Record<string, string>>;
  /**
   * The violations a validating proxy in front of the server reported in a response (Prism's
   * `sl-violations`); each one fails the case like a violation the suite found itself.
   */
  reportedViolations?(headers: Headers): string[];
}

/** One check of the suite, runnable against any target. */
export interface ContractCase {
  name: string;
  /**
   * Set when every request the case sends is valid per the contract (it may still end in 404 or
   * 429): a validating proxy that refuses invalid requests itself forwards all of them.
   */
  validRequestsOnly?: true;
  /**
   * Set when Prism's proxy routes the request to another operation than the service does, so
   * that it cannot judge the answer (it takes `/pets/` for `/pets/{petId}` with an empty id).
   */
  prismRoutesElsewhere?: true;
  /**
   * Set when its answer is a stream that stays open (GET /pets/feed): Prism's proxy holds an
   * answer until its end, so it never reaches the client through it.
   */
  endlessStream?: true;
  run(target: ContractTarget, checker: ContractChecker): Promise<void>;
}

/** Thrown when a response breaks the contract; lists every violation with the request. */
export const ContractViolationError = ConformanceViolation;

/** A typed client that also keeps the raw text of each response for the checker. */
function recordingClient(target: ContractTarget) {
  let last: ObservedResponse | null = null;
  const client = createClient<paths>({
    baseUrl: target.baseUrl,
    fetch: async (request: Request) => {
      const response = await fetch(request);
      last = {
        status: response.status,
        headers: response.headers,
        text: await response.clone().text(),
        reported: target.reportedViolations?.(response.headers),
      };
      return response;
    },
  });
  const observed = (): ObservedResponse => {
    if (!last) throw new Error('no response was recorded');
    const seen = last;
    last = null;
    return seen;
  };
  return { client, observed };
}

/** Sends a raw request (for bodies the typed client cannot express) and records it. */
async function rawRequest(target: ContractTarget, path: string, init: RequestInit): Promise<ObservedResponse> {
  const response = await fetch(`${target.baseUrl}${path}`, init);
  return {
    status: response.status,
    headers: response.headers,
    text: await response.text(),
    reported: target.reportedViolations?.(response.headers),
  };
}

/** POSTs a raw body to /pets with an API key (for bodies the typed client cannot express). */
async function postPetsRaw(target: ContractTarget, body: string, contentType = 'application/json'): Promise<ObservedResponse> {
  return rawRequest(target, '/pets', {
    method: 'POST',
    headers: { ...(await target.headersFor('authorized')), 'Content-Type': contentType },
    body,
  });
}

function expectConforms(
  checker: ContractChecker,
  operationId: string | null,
  request: string,
  observed: ObservedResponse,
  expectedStatus: number,
  more: string[] = [],
): void {
  // A handler not written yet is that alone, with the file to write, not a wrong status too.
  const unimplemented = operationId === null ? null : checker.notImplemented(operationId, observed);
  if (unimplemented) throw new ContractViolationError(request, observed, [unimplemented]);
  const violations = operationId === null ? checker.checkErrorResponse(observed) : checker.checkResponse(operationId, observed);
  if (observed.status !== expectedStatus) violations.unshift(`expected status ${expectedStatus}, got ${observed.status}`);
  violations.push(...more, ...(observed.reported ?? []));
  if (violations.length > 0) throw new ContractViolationError(request, observed, violations);
}

/** Checks that an Error body has the expected code and, for a 400, names `field` in details. */
function errorFacts(observed: ObservedResponse, code: string, field?: string): string[] {
  let body: { code?: string; details?: { field: string }[] };
  try {
    body = JSON.parse(observed.text) as typeof body;
  } catch {
    return [];
  }
  const facts: string[] = [];
  if (body.code !== code) facts.push(`expected error code ${code}, got ${String(body.code)}`);
  if (field && !body.details?.some((d) => d.field === field)) {
    facts.push(`expected details to name ${field}, got ${JSON.stringify(body.details ?? null)}`);
  }
  return facts;
}

const MAX_SAFE = 9007199254740991;

/** The target as contract-kit's conformance suite takes it: the API key `authorized` sends is the bearer token. */
function kitTarget(target: ContractTarget): ConformanceTarget {
  return {
    baseUrl: target.baseUrl,
    credential: async () => (await target.headersFor('authorized')).Authorization?.replace(/^Bearer /, ''),
    reportedViolations: target.reportedViolations?.bind(target),
  };
}

/**
 * The contract suite: contract-kit's conformance cases, made from the contract alone (a valid
 * request of every operation, each without a key, each input its schema refuses, an undeclared
 * media type, an unknown path and a wrong method), then the Animal Store's own cases below
 * (limits, 429, Idempotency-Key, the store behind the operations, the details of its errors).
 * Every case checks every response it gets in full; a kit case that cannot be run fails.
 */
export function contractCases(doc: OpenApiDocument): ContractCase[] {
  const streams = streamedOperations(doc);
  const fromContract = conformanceCases(doc).map((c): ContractCase => ({
    name: c.name,
    ...(c.kind === 'valid' ? { validRequestsOnly: true as const } : {}),
    ...(c.kind === 'valid' && c.operation !== null && streams.has(c.operation) ? { endlessStream: true as const } : {}),
    async run(target, checker) {
      const cannot = await c.run(kitTarget(target), checker);
      if (cannot !== undefined) throw new Error(`the case cannot be run: ${cannot}`);
    },
  }));
  return [...fromContract, ...animalStoreCases];
}

/** The Animal Store's own cases: what its contract's words promise beyond what a schema says. */
const animalStoreCases: ContractCase[] = [
  {
    name: 'listPets accepts limit and the status filter',
    validRequestsOnly: true,
    async run(target, checker) {
      const { client, observed } = recordingClient(target);
      await client.GET('/pets', { params: { query: { limit: 5, status: 'available' } }, headers: await target.headersFor('authorized') });
      expectConforms(checker, 'listPets', 'GET /pets?limit=5&status=available', observed(), 200);
    },
  },
  {
    name: 'listPets refuses limit=0 and limit=101 with 400 naming query.limit',
    async run(target, checker) {
      const { client, observed } = recordingClient(target);
      for (const limit of [0, 101]) {
        await client.GET('/pets', { params: { query: { limit } }, headers: await target.headersFor('authorized') });
        const seen = observed();
        expectConforms(checker, 'listPets', `GET /pets?limit=${limit}`, seen, 400, errorFacts(seen, 'invalid_request', 'query.limit'));
      }
    },
  },
  {
    name: 'listPets over the limit is 429 with Retry-After and the Error body',
    validRequestsOnly: true,
    async run(target, checker) {
      const { client, observed } = recordingClient(target);
      await client.GET('/pets', { headers: await target.headersFor('rateLimited') });
      const seen = observed();
      expectConforms(checker, 'listPets', 'GET /pets over the limit', seen, 429, errorFacts(seen, 'rate_limited'));
    },
  },
  {
    name: 'createPet accepts an Idempotency-Key',
    validRequestsOnly: true,
    async run(target, checker) {
      const { client, observed } = recordingClient(target);
      await client.POST('/pets', {
        body: { name: 'Bella', categoryId: 2 },
        params: { header: { 'Idempotency-Key': `contract-${Date.now()}-${Math.random()}` } },
        headers: await target.headersFor('authorized'),
      });
      expectConforms(checker, 'createPet', 'POST /pets with Idempotency-Key', observed(), 201);
    },
  },
  {
    name: 'createPet refuses a body without categoryId with 400 naming body.categoryId',
    async run(target, checker) {
      const seen = await postPetsRaw(target, JSON.stringify({ name: 'Rex' }));
      expectConforms(checker, 'createPet', 'POST /pets {name}', seen, 400, errorFacts(seen, 'invalid_request', 'body.categoryId'));
    },
  },
  {
    name: 'createPet refuses an id in the body with 400',
    async run(target, checker) {
      const seen = await postPetsRaw(target, JSON.stringify({ id: 7, name: 'Rex', categoryId: 3 }));
      expectConforms(checker, 'createPet', 'POST /pets {id,…}', seen, 400, errorFacts(seen, 'invalid_request'));
    },
  },
  {
    name: 'createPet refuses categoryId above 2^53-1 with 400',
    async run(target, checker) {
      const seen = await postPetsRaw(target, '{"name":"Rex","categoryId":9007199254740993}');
      expectConforms(
        checker,
        'createPet',
        'POST /pets categoryId=2^53+1',
        seen,
        400,
        errorFacts(seen, 'invalid_request', 'body.categoryId'),
      );
    },
  },
  {
    name: 'getPet returns 200 with the Pet and the deprecation headers',
    validRequestsOnly: true,
    async run(target, checker) {
      const { client, observed } = recordingClient(target);
      const created = await client.POST('/pets', { body: { name: 'Nemo', categoryId: 7 }, headers: await target.headersFor('authorized') });
      expectConforms(checker, 'createPet', 'POST /pets', observed(), 201);
      const petId = created.data?.id ?? 1;
      await client.GET('/pets/{petId}', { params: { path: { petId } }, headers: await target.headersFor('authorized') });
      expectConforms(checker, 'getPet', `GET /pets/${petId}`, observed(), 200);
    },
  },
  {
    name: 'getPet of an unknown id is 404 with the Error body and the deprecation headers',
    validRequestsOnly: true,
    async run(target, checker) {
      const { client, observed } = recordingClient(target);
      await client.GET('/pets/{petId}', { params: { path: { petId: MAX_SAFE } }, headers: await target.headersFor('notFound') });
      const seen = observed();
      expectConforms(checker, 'getPet', `GET /pets/${MAX_SAFE}`, seen, 404, errorFacts(seen, 'not_found'));
    },
  },
  {
    name: 'a contract path with a trailing slash is 404 with the Error body: the contract has no such path',
    prismRoutesElsewhere: true,
    async run(target, checker) {
      const seen = await rawRequest(target, '/pets/', { headers: await target.headersFor('authorized') });
      expectConforms(checker, null, 'GET /pets/', seen, 404, errorFacts(seen, 'not_found'));
    },
  },
];
