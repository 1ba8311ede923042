import { afterAll, beforeAll } from 'vitest';
import type { MockServer } from '../../src/mock/mock-server.js';
import { mockTarget, startMockForTests } from '../support/mock-target.js';
import { defineContractSuite } from './define-suite.js';

let mock: MockServer;
beforeAll(async () => {
  mock = await startMockForTests();
}, 60_000);
afterAll(() => mock?.close());

defineContractSuite('the Prism mock (npm run mock)', () => mockTarget(mock.url));
