// ESLint: typescript-eslint's type-aware rules on the TypeScript, the recommended rules on the
// JavaScript, and the size limits the code keeps (functions of at most 60 lines, files of at most
// 250) outside the tests. Formatting is Prettier's (npm run format), so no rule here is about it.
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      'dist/',
      'build/',
      'data/',
      'coverage/',
      'release/',
      'test-results/',
      'bench-results/',
      'packages/client/dist/',
      'test/designer/scenarios/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      globals: { ...globals.node },
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
  },
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    files: ['src/**/*.ts', 'scripts/**', 'bench/**'],
    rules: {
      'max-lines-per-function': ['error', { max: 60 }],
      'max-lines': ['error', { max: 250 }],
    },
  },
  prettier,
);
