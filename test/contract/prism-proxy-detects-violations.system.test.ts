import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPrismProxy, throughPrism, type PrismProxy } from '../support/prism-proxy.js';
import { startTamperingProxy, withoutErrorStatus, type Intercepted } from '../support/tampering-proxy.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import type { ContractTarget } from './cases.js';
import type { ContractChecker } from './conformance.js';
import { runContractCases } from './run-cases.js';
import { serverTarget } from './server-target.js';

// The Prism target is only worth something if Prism's reports can fail it. Here a tampering
// proxy between Prism and the real server breaks each response in one known way, and the suite
// runs with a checker that finds nothing by itself: every failure below is Prism's.
//   client → prism proxy openapi.yaml → tampering proxy → real server

/** A checker that never objects, so only Prism's reports (and the cases' own status and code checks) remain. */
const blindChecker = { checkResponse: () => [], checkErrorResponse: () => [], notImplemented: () => null } as unknown as ContractChecker;

let server: TestServer;
let tampering: { baseUrl: string; close(): Promise<void> };
let proxy: PrismProxy;
let refusingProxy: PrismProxy;
let target: ContractTarget;
let refusingTarget: ContractTarget;
let tamper: (r: Intercepted) => Intercepted = (r) => r;

beforeAll(async () => {
  server = await startTestServer({ anonymousLimits: { perMinute: 1000, perDay: 10_000 } });
  tampering = await startTamperingProxy(server.baseUrl, (r) => tamper(r));
  [proxy, refusingProxy] = await Promise.all([startPrismProxy(tampering.baseUrl), startPrismProxy(tampering.baseUrl, { errors: true })]);
  const direct = await serverTarget(server);
  target = throughPrism(direct, proxy);
  refusingTarget = throughPrism(direct, refusingProxy);
}, 60_000);
afterAll(async () => {
  await Promise.all([proxy?.close(), refusingProxy?.close()]);
  await tampering?.close();
  await server?.close();
});

/**
 * Runs the suite through Prism with `change` applied to every response of the server; with
 * `errors`, through `prism proxy --errors` and only the cases that send valid requests; never the
 * cases Prism routes to another operation than the service.
 */
async function runWith(change: (r: Intercepted) => Intercepted, { errors = false } = {}) {
  tamper = change;
  try {
    return errors
      ? await runContractCases(refusingTarget, blindChecker, (c) => c.validRequestsOnly === true && c.endlessStream !== true)
      : await runContractCases(target, blindChecker, (c) => c.prismRoutesElsewhere !== true && c.endlessStream !== true);
  } finally {
    tamper = (r) => r;
  }
}

/** The cases that check a response of an operation of the contract (Prism has nothing to check the others against). */
const isOperationCase = (name: string) => /^(listPets|createPet|getPet)/.test(name);

describe("Prism's validation proxy", () => {
  it('passes the untouched server, with and without --errors', async () => {
    for (const [name, failure] of await runWith((r) => r)) expect(failure, name).toBeNull();
    const refused = await runWith((r) => r, { errors: true });
    expect(refused.size).toBeGreaterThanOrEqual(7);
    for (const [name, failure] of refused) expect(failure, name).toBeNull();
  });

  it('with --errors, answers in place of a response without X-RateLimit-Remaining, failing every case', async () => {
    const outcomes = await runWith(
      (r) => {
        delete r.headers['x-ratelimit-remaining'];
        return r;
      },
      { errors: true },
    );
    expect(outcomes.size).toBeGreaterThanOrEqual(7);
    for (const [name, failure] of outcomes) expect(failure, name).toMatch(/→ 500 /);
  });

  it('fails every operation case when X-RateLimit-Remaining is missing', async () => {
    const outcomes = await runWith((r) => {
      delete r.headers['x-ratelimit-remaining'];
      return r;
    });
    for (const [name, failure] of outcomes) {
      if (isOperationCase(name)) expect(failure, name).toMatch(/Prism \(\w+\) at response\.header.*x-ratelimit-remaining/i);
    }
  });

  it('fails the error cases when the Error body lacks status', async () => {
    const outcomes = await runWith(withoutErrorStatus);
    expect(outcomes.get('listPets: a request without credentials is refused with 401')).toMatch(/Prism .*at response\.body.*status/);
    expect(outcomes.get('createPet: a body of a media type it does not declare is refused with 415')).toMatch(
      /Prism .*at response\.body.*status/,
    );
    expect(outcomes.get('listPets: a valid request (GET /pets) is answered as the contract declares')).toBeNull();
  });

  it('fails the getPet cases whose response declares Sunset when it has another date', async () => {
    const outcomes = await runWith((r) => {
      if (r.headers.sunset) r.headers.sunset = 'Fri, 06 Dec 2030 00:00:00 GMT';
      return r;
    });
    // Prism checks the headers each response object declares: 200 and 404 declare Sunset; the
    // shared BadRequest and Unauthorized responses do not (the suite's own checker covers those).
    for (const name of [
      'getPet returns 200 with the Pet and the deprecation headers',
      'getPet of an unknown id is 404 with the Error body and the deprecation headers',
    ]) {
      expect(outcomes.get(name), name).toMatch(/Prism \(Error\) at response\.header\.sunset: .*constant/);
    }
    for (const [name, failure] of outcomes) if (!name.startsWith('getPet')) expect(failure, name).toBeNull();
  });

  it('fails a Pet with a field the contract does not have', async () => {
    const outcomes = await runWith((r) => {
      if (r.status === 201) r.body = Buffer.from(JSON.stringify({ ...JSON.parse(r.body.toString()), owner: 'Alice' }));
      return r;
    });
    expect(outcomes.get('createPet: a valid request (POST /pets) is answered as the contract declares')).toMatch(
      /Prism .*at response\.body/,
    );
  });
});
