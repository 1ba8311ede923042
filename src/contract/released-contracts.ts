import { dirname, join, relative } from 'node:path';
import { majorOf } from 'contract-kit';
import { releasedContracts as releasedIn } from 'contract-kit/breaking';
import { loadSpec, SPEC_PATH, type OpenApiDocument } from './load-spec.js';

/**
 * Where the contract of each released major version is kept beside openapi.yaml
 * (`contracts/released/1.x.yaml`, `2.x.yaml`): files committed with the repository, so that every
 * clone has them (CI's too, where tags may not be fetched and HEAD is the commit under test).
 */
const RELEASED_DIR = join('contracts', 'released');

/**
 * The released contracts recorded beside `specPath`, by major, lowest first: contract-kit's
 * (`npm run check:breaking` compares with them, `-- --record` writes them).
 */
export function releasedContracts(specPath: string = SPEC_PATH): { major: number; path: string }[] {
  return releasedIn(join(dirname(specPath), RELEASED_DIR));
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

/** A date of a contract's `info` (`x-sunset`, `x-deprecated-at`), as written, or null. */
const infoDate = (doc: OpenApiDocument, key: string) => (typeof doc.info[key] === 'string' ? doc.info[key] : null);

/**
 * How the start banner tells an earlier major's end: `, until 2031-06-30` while its sunset
 * (`info.x-sunset`) is ahead, what it answers once the sunset has passed, '' without one.
 */
export function sunsetNote(doc: OpenApiDocument, now: number): string {
  const sunset = infoDate(doc, 'x-sunset');
  if (sunset === null) return '';
  if (now < Date.parse(sunset)) return `, until ${sunset}`;
  return `, past its sunset on ${sunset}: every operation answers 410 Gone; delete the file to stop serving it`;
}
