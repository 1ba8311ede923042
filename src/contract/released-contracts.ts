import { existsSync, readdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { majorOf } from 'contract-kit';
import { loadSpec, SPEC_PATH, type OpenApiDocument } from './load-spec.js';

/**
 * Where the contract of each released major version is kept beside openapi.yaml
 * (`contracts/released/1.x.yaml`, `2.x.yaml`): files committed with the repository, so that every
 * clone has them (CI's too, where tags may not be fetched and HEAD is the commit under test).
 */
export const RELEASED_DIR = join('contracts', 'released');
const RELEASED_FILE = /^(\d+)\.x\.yaml$/;

/** The released contracts recorded beside `specPath`, by major, lowest first. */
export function releasedContracts(specPath: string = SPEC_PATH): { major: number; path: string }[] {
  const dir = join(dirname(specPath), RELEASED_DIR);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .map((name) => ({ major: Number(RELEASED_FILE.exec(name)?.[1]), path: join(dir, name) }))
    .filter((released) => Number.isInteger(released.major))
    .sort((a, b) => a.major - b.major);
}

/** A released contract of a major version before openapi.yaml's, served beside it. */
export interface PreviousVersion {
  /** Its file, relative to openapi.yaml (`contracts/released/1.x.yaml`). */
  label: string;
  major: number;
  doc: OpenApiDocument;
}

/**
 * The released contracts of the major versions before `current`'s (openapi.yaml's), newest
 * first: the service serves each under its own servers' path, beside openapi.yaml, until its
 * `info.x-sunset` has passed (then its operations answer 410) or its file is deleted.
 * @throws Error when a file holds a contract of another major than its name says
 */
export function previousVersions(specPath: string = SPEC_PATH, current: OpenApiDocument = loadSpec(specPath)): PreviousVersion[] {
  const currentMajor = majorOf(current.info.version, relative(process.cwd(), specPath) || specPath);
  return releasedContracts(specPath)
    .filter(({ major }) => major < currentMajor)
    .reverse()
    .map(({ major, path }) => {
      const label = relative(dirname(specPath), path);
      const doc = loadSpec(path, label);
      const own = majorOf(doc.info.version, label);
      if (own !== major)
        throw new Error(`${label} holds info.version ${doc.info.version}, not a ${major}.x version: record each major in its own file`);
      return { label, major, doc };
    });
}
