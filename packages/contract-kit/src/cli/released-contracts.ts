import { copyFileSync, existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { OpenApiDocument } from '../contract/document.js';
import { basePathsOf } from '../contract/servers.js';

/** A released contract's file name: the major version it holds, `1.x.yaml`, `2.x.yaml`. */
const RELEASED_FILE = /^(\d+)\.x\.yaml$/;

/** A contract recorded as the released one of its major version, in a folder of released contracts. */
export interface ReleasedContract {
  major: number;
  path: string;
}

/** The released contracts in `dir` (`<major>.x.yaml` each), lowest major first; none when `dir` does not exist. */
export function releasedContracts(dir: string): ReleasedContract[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .map((name) => ({ major: Number(RELEASED_FILE.exec(name)?.[1]), path: join(dir, name) }))
    .filter((released) => Number.isInteger(released.major))
    .sort((a, b) => a.major - b.major);
}

/** The released contract of `major`, or of the highest major below it, if one was recorded in `dir`. */
export function lastReleased(dir: string, major: number): ReleasedContract | undefined {
  return releasedContracts(dir)
    .filter((released) => released.major <= major)
    .at(-1);
}

/** Copies the contract at `specPath` into `dir` as the released one of `major`; returns the file written. */
export function recordRelease(dir: string, major: number, specPath: string): string {
  const path = join(dir, `${major}.x.yaml`);
  mkdirSync(dir, { recursive: true });
  copyFileSync(specPath, path);
  return path;
}

/** A date of a contract's `info` (`x-sunset`, `x-deprecated-at`), as written, or null. */
const infoDate = (doc: OpenApiDocument, key: string) => (typeof doc.info[key] === 'string' ? doc.info[key] : null);

/**
 * What is wrong with the end a contract schedules in its `info`, one sentence each (`label` names
 * its file): an `x-sunset` without `x-deprecated-at`, the day the end was announced (the kit's
 * server would then answer `Deprecation: @0`, deprecated since 1970), or announced after it comes.
 */
export function scheduledEndProblems(doc: OpenApiDocument, label: string, today: Date = new Date()): string[] {
  const [sunset, announced] = [infoDate(doc, 'x-sunset'), infoDate(doc, 'x-deprecated-at')];
  if (sunset === null) return [];
  const under = basePathsOf(doc)[0] || '/';
  if (announced === null) {
    return [
      `${label}: info.x-sunset ${sunset} without info.x-deprecated-at, so every answer under ${under} would say Deprecation: @0 ` +
        `(deprecated since 1 January 1970). Add beside it the day the end is announced: x-deprecated-at: '${today.toISOString().slice(0, 10)}'`,
    ];
  }
  if (Date.parse(announced) > Date.parse(sunset)) return [`${label}: info.x-deprecated-at ${announced} is after info.x-sunset ${sunset}`];
  return [];
}
