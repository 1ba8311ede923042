import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// `npm test` runs two projects, told apart by file name. A test whose subject or partner runs as
// a process of its own (the service started as an operator would, an npm command or script,
// Prism, Chromium, a build, a pack) is named *.system.test.ts and belongs to `system`; every other
// test belongs to `fast` and runs inside the test process (the app on port 0, the stores on real
// SQLite, PostgreSQL and Redis). One alone: npm run test:fast, test:system (--project <name>).
const SYSTEM_TESTS = '{test,packages/contract-kit/test}/**/*.system.test.ts';

export default defineConfig({
  resolve: {
    // Tests run the client's sources; the pack test (test/client/package.system.test.ts) runs what is published.
    alias: {
      '@animal-store/client': fileURLToPath(new URL('./packages/client/src/index.ts', import.meta.url)),
      'contract-kit/codegen': fileURLToPath(new URL('./packages/contract-kit/src/codegen/index.ts', import.meta.url)),
      'contract-kit/breaking': fileURLToPath(new URL('./packages/contract-kit/src/breaking.ts', import.meta.url)),
      'contract-kit/testing': fileURLToPath(new URL('./packages/contract-kit/src/testing/index.ts', import.meta.url)),
      'contract-kit': fileURLToPath(new URL('./packages/contract-kit/src/index.ts', import.meta.url)),
    },
  },
  test: {
    // PostgreSQL and Redis at their variables, else at the default local addresses if they answer.
    globalSetup: ['test/support/services-setup.ts'],
    // What a test or a beforeAll started is killed when it ends, timed out or not (test/support/processes.ts).
    setupFiles: ['test/support/processes-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two test files at a time at least: vitest's default (one less than the cores) runs one file
    // at a time on two cores, while most files wait on sockets, timers and processes. On two
    // cores, the fast project took 112 s with two files at a time against 193 s with one, the
    // system project 288 s against about 470 s, for the same CPU time.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    projects: [
      // The designer loop takes minutes on a copy of the repository (npm run test:designer), the adoption
      // test on projects that install the packed kit (npm run test:adoption).
      {
        extends: true,
        test: {
          name: 'fast',
          include: ['test/**/*.test.ts', 'packages/contract-kit/test/**/*.test.ts'],
          exclude: [SYSTEM_TESTS, 'test/designer/**', 'packages/contract-kit/test/adoption/**'],
        },
      },
      { extends: true, test: { name: 'system', include: [SYSTEM_TESTS] } },
    ],
    // v8 coverage of the test process, one project at a time: npm run coverage:fast, coverage:system,
    // each with its floor (--coverage.thresholds.*, in package.json). Code that runs only in a
    // process the tests start (the service, a command, Prism) is not counted.
    coverage: {
      provider: 'v8',
      include: ['src/**/*.ts', 'packages/client/src/**/*.ts', 'packages/contract-kit/src/**/*.ts', 'lint/**/*.js'],
      exclude: [
        // Generated types: no code of ours to run.
        'packages/client/src/generated/**',
        // Process entries, run only as processes of their own (the system tests start them): the
        // service, and contract-kit's command line (packages/contract-kit/test/*.system.test.ts).
        'src/service/main.ts',
        'packages/contract-kit/src/cli/**',
        'src/service/runtime-check.ts',
        'src/service/keys/cli.ts',
        // Redocly loads our lint rules in its own process (npm run lint, test/spec/lint.system.test.ts).
        'lint/animal-store-rules.js',
      ],
      reporter: ['text-summary', 'json-summary', 'html'],
      // The figures even when a test fails, so a red run still says what it covered.
      reportOnFailure: true,
    },
  },
});
