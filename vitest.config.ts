import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// `npm test` runs two projects, told apart by file name. A test whose subject or partner runs as
// a process of its own (the service started as an operator would, an npm command or script,
// Prism, Chromium, a build, a pack) is named *.system.test.ts and belongs to `system`; every other
// test belongs to `fast` and runs inside the test process (the app on port 0, the stores on real
// SQLite, PostgreSQL and Redis). One alone: npm run test:fast, test:system (--project <name>).
const SYSTEM_TESTS = 'test/**/*.system.test.ts';

export default defineConfig({
  resolve: {
    // Tests run the client's sources; the pack test (test/client/package.system.test.ts) runs what is published.
    alias: { '@animal-store/client': fileURLToPath(new URL('./packages/client/src/index.ts', import.meta.url)) },
  },
  test: {
    // PostgreSQL and Redis at their variables, else at the default local addresses if they answer.
    globalSetup: ['test/support/services-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      // The designer loop takes minutes on a copy of the repository: npm run test:designer.
      { extends: true, test: { name: 'fast', include: ['test/**/*.test.ts'], exclude: [SYSTEM_TESTS, 'test/designer/**'] } },
      { extends: true, test: { name: 'system', include: [SYSTEM_TESTS] } },
    ],
  },
});
