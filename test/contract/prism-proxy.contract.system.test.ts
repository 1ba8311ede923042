import { afterAll, beforeAll } from 'vitest';
import { startPrismProxy, throughPrism, type PrismProxy } from '../support/prism-proxy.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import type { ContractTarget } from './cases.js';
import { defineContractSuite } from './define-suite.js';
import { serverTarget } from './server-target.js';

// The suite once more against the real server, but through Prism's validation proxy: a second,
// independent implementation of OpenAPI checks every response (status, headers, body), and any
// violation it reports fails the case. test/contract/prism-proxy-detects-violations.system.test.ts
// proves that it does report them.

// Twice: with --errors, where Prism refuses invalid requests itself, for the cases that send
// only valid ones (a response violation becomes Prism's 500); and without, for every case.

let server: TestServer;
let reporting: PrismProxy;
let refusing: PrismProxy;
let reportingTarget: ContractTarget;
let refusingTarget: ContractTarget;

beforeAll(async () => {
  server = await startTestServer();
  [reporting, refusing] = await Promise.all([startPrismProxy(server.baseUrl), startPrismProxy(server.baseUrl, { errors: true })]);
  const direct = await serverTarget(server);
  reportingTarget = throughPrism(direct, reporting);
  refusingTarget = throughPrism(direct, refusing);
}, 60_000);
afterAll(async () => {
  await Promise.all([reporting?.close(), refusing?.close()]);
  await server?.close();
});

defineContractSuite("the real server through Prism's validation proxy (prism proxy openapi.yaml --errors)", () => refusingTarget, {
  only: (contractCase) => contractCase.validRequestsOnly === true && contractCase.endlessStream !== true,
});
defineContractSuite("the real server through Prism's validation proxy, reporting (prism proxy openapi.yaml)", () => reportingTarget, {
  only: (contractCase) => contractCase.prismRoutesElsewhere !== true && contractCase.endlessStream !== true,
});
