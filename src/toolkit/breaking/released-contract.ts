import { copyFileSync, existsSync, mkdirSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * Where a project keeps, beside its contract, the contract of each major version it released
 * (`1.x.yaml`, `2.x.yaml`): files committed with it, so that every clone has them, CI's too,
 * where tags may not be fetched and HEAD is the commit under test.
 */
const RELEASED_DIR = join('contracts', 'released');
const RELEASED_FILE = /^(\d+)\.x\.yaml$/;

/** The released contract of the highest major up to `major` (a contract's own), if one was recorded. */
export function lastReleased(specPath: string, major: number): string | undefined {
  const dir = join(dirname(specPath), RELEASED_DIR);
  if (!existsSync(dir)) return undefined;
  const majors = readdirSync(dir)
    .map((name) => Number(RELEASED_FILE.exec(name)?.[1]))
    .filter((released) => released <= major);
  return majors.length === 0 ? undefined : join(dir, `${Math.max(...majors)}.x.yaml`);
}

/** Records the contract as the released one of its major; returns the file it wrote. */
export function recordRelease(specPath: string, major: number): string {
  const path = join(dirname(specPath), RELEASED_DIR, `${major}.x.yaml`);
  mkdirSync(dirname(path), { recursive: true });
  copyFileSync(specPath, path);
  return path;
}
