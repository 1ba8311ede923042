import { basePathsOf } from 'contract-kit';
import { afterAll, beforeAll } from 'vitest';
import { previousVersions } from '../../src/contract/released-contracts.js';
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

// Each earlier major version the service serves beside openapi.yaml (contracts/released), against its own contract.
for (const version of previousVersions()) {
  defineContractSuite(
    `the real server's ${version.label} (in-process, SQLite)`,
    () => ({ ...target, baseUrl: `${server.origin}${basePathsOf(version.doc)[0]}` }),
    { contract: version.doc },
  );
}
