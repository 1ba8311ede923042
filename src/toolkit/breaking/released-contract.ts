import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { RELEASED_DIR, releasedContracts } from '../../contract/released-contracts.js';

/** The released contract of the highest major up to `major` (a contract's own), if one was recorded. */
export function lastReleased(specPath: string, major: number): string | undefined {
  return releasedContracts(specPath)
    .filter((released) => released.major <= major)
    .at(-1)?.path;
}

/** Records the contract as the released one of its major; returns the file it wrote. */
export function recordRelease(specPath: string, major: number): string {
  const path = join(dirname(specPath), RELEASED_DIR, `${major}.x.yaml`);
  mkdirSync(dirname(path), { recursive: true });
  copyFileSync(specPath, path);
  return path;
}
