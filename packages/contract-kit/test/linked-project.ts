import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { inProject } from './adoption/project.js';

const KIT = fileURLToPath(new URL('..', import.meta.url));
const ROOT = join(KIT, '..', '..');
const MODULES = join(ROOT, 'node_modules');

/** Builds the kit's dist/, which a project's `contract-kit` command and `import 'contract-kit'` run. */
export async function buildKit(): Promise<void> {
  const built = await inProject(ROOT, 'npm', ['run', '-s', 'build', '-w', 'contract-kit']);
  expect(built.code, built.output).toBe(0);
}

/**
 * A project as `npm init -y`, installing the kit and `contract-kit init` and `generate` leave
 * it, but with the kit built from this repository in place of its tarball, and every package
 * linked from the repository's node_modules (the adoption test installs them; this takes seconds).
 * Its contract is the fixture `fixture`, as openapi.yaml. Build the kit first (buildKit).
 */
export async function linkedProject(fixture: string): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'contract-kit-project-'));
  copyFileSync(join(KIT, 'test', 'fixtures', fixture), join(dir, 'openapi.yaml'));
  const modules = join(dir, 'node_modules');
  mkdirSync(join(modules, '.bin'), { recursive: true });
  for (const name of readdirSync(MODULES)) {
    if (name.startsWith('.') || name === 'contract-kit') continue;
    symlinkSync(join(MODULES, name), join(modules, name));
  }
  for (const name of readdirSync(join(MODULES, '.bin'))) {
    if (name === 'contract-kit') continue;
    symlinkSync(realpathSync(join(MODULES, '.bin', name)), join(modules, '.bin', name));
  }
  symlinkSync(KIT, join(modules, 'contract-kit'));
  // As npm links a package's bin: its file, made executable.
  const main = join(KIT, 'dist', 'cli', 'main.js');
  chmodSync(main, 0o755);
  symlinkSync(main, join(modules, '.bin', 'contract-kit'));
  for (const [command, args] of [
    ['npm', ['init', '-y']],
    ['npx', ['contract-kit', 'init']],
    ['npm', ['run', 'generate']],
  ] as const) {
    const outcome = await inProject(dir, command, [...args]);
    expect(outcome.code, `${command} ${args.join(' ')}:\n${outcome.output}`).toBe(0);
  }
  return dir;
}
