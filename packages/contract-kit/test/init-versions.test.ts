import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PROJECT_DEPENDENCIES, PROJECT_DEV_DEPENDENCIES } from '../src/cli/init.js';
import { COMMAND_TOOLS } from '../src/cli/tools.js';

interface Manifest {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  peerDependencies?: Record<string, string>;
}
const read = (path: string) => JSON.parse(readFileSync(new URL(path, import.meta.url), 'utf8')) as Manifest;
const repository = read('../../../package.json');
const kit = read('../package.json');

describe('the versions contract-kit init adds to a project', () => {
  it('are those this repository pins and tests the kit with', () => {
    for (const [name, version] of Object.entries({ ...PROJECT_DEPENDENCIES, ...PROJECT_DEV_DEPENDENCIES })) {
      expect(repository.dependencies[name] ?? repository.devDependencies[name] ?? kit.devDependencies[name], name).toBe(version);
    }
  });

  it("add the tools of the kit's commands for development, which the kit itself does not depend on", () => {
    for (const [name, version] of Object.entries(COMMAND_TOOLS)) {
      expect(PROJECT_DEV_DEPENDENCIES[name], name).toBe(version);
      expect(kit.devDependencies[name], name).toBe(version);
      expect(kit.dependencies[name] ?? kit.peerDependencies?.[name], name).toBeUndefined();
    }
  });
});
