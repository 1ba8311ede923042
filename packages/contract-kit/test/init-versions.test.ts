import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PROJECT_DEPENDENCIES, PROJECT_DEV_DEPENDENCIES } from '../src/cli/init.js';

const repository = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

describe('the versions contract-kit init adds to a project', () => {
  it('are those this repository pins and tests the kit with', () => {
    for (const [name, version] of Object.entries({ ...PROJECT_DEPENDENCIES, ...PROJECT_DEV_DEPENDENCIES })) {
      expect(repository.dependencies[name] ?? repository.devDependencies[name], name).toBe(version);
    }
  });
});
