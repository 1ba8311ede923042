import { afterAll, beforeAll } from 'vitest';
import { startTestServer, type TestServer } from '../support/test-server.js';
import type { ContractTarget } from './cases.js';
import { defineContractSuite } from './define-suite.js';
import { serverTarget } from './server-target.js';

let server: TestServer;
let target: ContractTarget;

beforeAll(async () => {
  server = await startTestServer();
  target = await serverTarget(server);
});
afterAll(() => server?.close());

defineContractSuite('the real server (in-process, SQLite)', () => target);
