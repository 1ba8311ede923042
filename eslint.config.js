// ESLint: typescript-eslint's type-aware rules on the TypeScript, the recommended rules on the
// JavaScript, and the size limits the code keeps (functions of at most 60 lines, files of at most
// 250) outside the tests. Formatting is Prettier's (npm run format), so no rule here is about it.
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

export default defineConfig(
  {
    ignores: [
      'node_modules/',
      'dist/',
      // What `npm run build` writes before it renames it (scripts/build-fresh.mjs), at the root and in packages/client: check runs build and ESLint side by side.
      '**/dist.building-*/',
      'build/',
      'data/',
      'coverage/',
      'release/',
      'test-results/',
      'packages/client/dist/',
      'packages/contract-kit/dist/',
      'test/designer/scenarios/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      globals: { ...globals.node },
      // One program for the whole tree (tsconfig.json covers every TypeScript file linted): about
      // a third faster than projectService's per-file lookup here (20 s against 28 s).
      parserOptions: { project: './tsconfig.json', tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // A package is used through what it exports: its internal files change in any release. Ajv
      // documents its JSON Schema 2019-09 and 2020-12 classes at ajv/dist/2019 and ajv/dist/2020.
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(?!ajv/dist/20(19|20)([.]js)?$)(@[^./][^/]*/)?[^./][^/]*/(dist|lib|build|src|internal)(/|$)',
              message: "Import the package's public entry point, not its internal files.",
            },
          ],
        },
      ],
      // A leading underscore names what is there only to be left out (`const { pattern: _p, ...rest }`).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
    },
  },
  {
    // The templates of contract-kit init, in the program that types them as a project would.
    files: ['packages/contract-kit/templates/**/*.ts', 'packages/contract-kit/test/templates/**/*.ts'],
    languageOptions: {
      parserOptions: { project: './packages/contract-kit/test/templates/tsconfig.json', tsconfigRootDir: import.meta.dirname },
    },
    // A project's Context begins as an empty interface, for its handlers' needs to fill in.
    rules: { '@typescript-eslint/no-empty-object-type': ['error', { allowInterfaces: 'always' }] },
  },
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    // Tests edit parsed copies of the contract and read pages' results as plain JSON; what they
    // rely on is asserted at run time, so the `any` rules would only ask for casts there. The
    // type-level tests are handlers written as handlers are. Test helpers keep every rule.
    files: ['test/**/*.test.ts', 'test/types/**', 'packages/contract-kit/test/**/*.test.ts', 'packages/contract-kit/test/types/**'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      // Fakes implement the async interfaces they stand in for, often without awaiting anything.
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    // CommonJS TypeScript imports with `import x = require()` (a plain import is refused there
    // under verbatimModuleSyntax): the client's CommonJS example shows how.
    files: ['**/*.cts'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['src/**/*.ts', 'scripts/**', 'bench/**', 'lint/**', 'packages/client/src/**', 'packages/client/examples/**'],
    ignores: ['packages/client/src/generated/**'],
    rules: {
      'max-lines-per-function': ['error', { max: 60 }],
      'max-lines': ['error', { max: 250 }],
    },
  },
  {
    // Only contract-kit walks a contract: the service, its commands and plugins take operations from
    // its listOperations (each one's parameters, bodies and responses, $refs followed).
    files: ['src/**/*.ts', 'scripts/**/*.ts', 'contract-kit.config.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "MemberExpression[property.name='paths'], MemberExpression[property.value='paths']",
          message: "Take the contract's operations from contract-kit's listOperations; only the kit walks its paths.",
        },
      ],
    },
  },
  {
    // The kit's files are held to the same size as the service's; its longer functions are not yet.
    files: ['packages/*/src/**/*.ts'],
    ignores: ['packages/client/src/generated/**'],
    rules: { 'max-lines': ['error', { max: 250 }] },
  },
  prettier,
);
