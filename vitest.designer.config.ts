import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

/** `npm run test:designer`: the designer loop (test/designer/), apart from `npm test` because it takes minutes. */
export default defineConfig({
  resolve: base.resolve,
  test: {
    include: ['test/designer/*.test.ts'],
    globalSetup: base.test?.globalSetup,
    setupFiles: base.test?.setupFiles,
    testTimeout: 30_000,
    hookTimeout: 5 * 60_000,
  },
});
