import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // Tests run the client's sources; the pack test (test/client/package.test.ts) runs what is published.
    alias: { '@animal-store/client': fileURLToPath(new URL('./packages/client/src/index.ts', import.meta.url)) },
  },
  test: {
    include: ['test/**/*.test.ts'],
    // PostgreSQL and Redis at their variables, else at the default local addresses if they answer.
    globalSetup: ['test/support/services-setup.ts'],
    // The designer loop takes minutes on a copy of the repository: npm run test:designer.
    exclude: ['test/designer/**', '**/node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
