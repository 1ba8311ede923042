import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { basename, dirname } from 'node:path';

/** The version of the contract a revision is compared with. */
export type BaseRevision = { found: true; commit: string; description: string } | { found: false; description: string };

function git(args: string[], cwd: string, { trim = true } = {}): string {
  try {
    const output = execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 * 1024 * 1024 });
    return trim ? output.trim() : output;
  } catch (error) {
    const stderr = ((error as { stderr?: string }).stderr ?? '').trim();
    if ((error as NodeJS.ErrnoException).code === 'ENOENT')
      throw new Error('git is not installed; check:breaking reads earlier versions of the contract from git.');
    throw new Error(stderr || (error as Error).message);
  }
}

function subject(commit: string, cwd: string): string {
  return git(['log', '-1', '--format=%h "%s"', commit], cwd);
}

/**
 * Which committed version of `specPath` to compare the working copy with. With `ref`, that
 * revision. Without: when the working copy differs from HEAD, the last committed version; when
 * it does not, the version before the last commit that changed the file, so that a freshly
 * committed edit is still checked.
 */
export function findBaseRevision(specPath: string, ref?: string): BaseRevision {
  const cwd = dirname(specPath);
  const file = `./${basename(specPath)}`;
  try {
    git(['rev-parse', '--is-inside-work-tree'], cwd);
  } catch {
    throw new Error(`${cwd} is not inside a git work tree; check:breaking compares the contract with a git revision.`);
  }
  if (ref !== undefined) {
    let commit: string;
    try {
      commit = git(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], cwd);
    } catch {
      throw new Error(`Unknown git revision "${ref}" (try a branch, a tag or a commit such as HEAD~1).`);
    }
    try {
      git(['cat-file', '-e', `${commit}:${file}`], cwd);
    } catch {
      throw new Error(`${basename(specPath)} does not exist at ${subject(commit, cwd)}; name a revision that has it.`);
    }
    return { found: true, commit, description: `its version at ${ref} (${subject(commit, cwd)})` };
  }
  const changes = git(['log', '-2', '--format=%H', '--', file], cwd).split('\n').filter(Boolean);
  if (changes.length === 0) {
    return { found: false, description: `${basename(specPath)} has never been committed, so no client can depend on an earlier version.` };
  }
  const dirty = git(['status', '--porcelain', '--', file], cwd) !== '';
  if (dirty) {
    return { found: true, commit: changes[0]!, description: `its last committed version (${subject(changes[0]!, cwd)})` };
  }
  const previous = changes[1];
  if (!previous) {
    return {
      found: false,
      description: `${basename(specPath)} was first committed in ${subject(changes[0]!, cwd)}; there is no earlier version to compare with.`,
    };
  }
  try {
    git(['cat-file', '-e', `${previous}:${file}`], cwd);
  } catch {
    return {
      found: false,
      description: `${basename(specPath)} did not exist before ${subject(changes[0]!, cwd)}; there is no earlier version to compare with.`,
    };
  }
  return {
    found: true,
    commit: previous,
    description: `its version before the last commit that changed it, ${subject(changes[0]!, cwd)}, i.e. at ${subject(previous, cwd)}`,
  };
}

/** Writes the contract as it was at `commit` to `destination`. */
export function writeSpecAtRevision(specPath: string, commit: string, destination: string): void {
  writeFileSync(destination, git(['show', `${commit}:./${basename(specPath)}`], dirname(specPath), { trim: false }));
}
