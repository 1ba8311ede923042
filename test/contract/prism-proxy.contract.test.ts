import { afterAll, beforeAll } from 'vitest';
import { startPrismProxy, throughPrism, type PrismProxy } from '../support/prism-proxy.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import type { ContractTarget } from './cases.js';
import { defineContractSuite } from './define-suite.js';
import { serverTarget } from './server-target.js';

// The suite once more against the real server, but through Prism's validation proxy: a second,
// independent implementation of OpenAPI checks every response (status, headers, body), and any
// violation it reports fails the case. test/contract/prism-proxy-detects-violations.test.ts
// proves that it does report them.

let server: TestServer;
let proxy: PrismProxy;
let target: ContractTarget;

beforeAll(async () => {
  server = await startTestServer();
  proxy = await startPrismProxy(server.baseUrl);
  target = throughPrism(await serverTarget(server), proxy);
}, 60_000);
afterAll(async () => {
  await proxy?.close();
  await server?.close();
});

defineContractSuite("the real server through Prism's validation proxy (prism proxy openapi.yaml)", () => target);
