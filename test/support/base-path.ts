import { basePathsOf } from 'contract-kit';
import { loadSpec } from '../../src/contract/load-spec.js';

/**
 * The path openapi.yaml's operations are served under, from its first server (`/v1`), as the
 * test server's baseUrl has it: tests that write a raw request target write `${BASE_PATH}/pets`,
 * so that a new major version (`/v2`) is what they test.
 */
export const BASE_PATH = basePathsOf(loadSpec())[0]!;
