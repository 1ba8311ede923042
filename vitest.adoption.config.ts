import { defineConfig } from 'vitest/config';

/**
 * `npm run test:adoption`: the packed contract-kit installed into empty projects, one per fixture
 * contract (packages/contract-kit/test/adoption/), apart from `npm test` because it takes minutes.
 */
export default defineConfig({
  test: {
    include: ['packages/contract-kit/test/adoption/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 10 * 60_000,
  },
});
