import { execFileSync } from 'node:child_process';
import { mkdirSync, realpathSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';

/** The committed version of a contract that another is compared with. */
export type BaseRevision = { found: true; commit: string; description: string } | { found: false; description: string };

function git(args: string[], cwd: string, { trim = true } = {}): string {
  try {
    const output = execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 256 * 1024 * 1024 });
    return trim ? output.trim() : output;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT')
      throw new Error('git is not installed; check-breaking reads earlier versions of the contract from git.');
    throw new Error(((error as { stderr?: string }).stderr ?? '').trim() || (error as Error).message);
  }
}

const subject = (commit: string, cwd: string) => git(['log', '-1', '--format=%h "%s"', commit], cwd);

/**
 * Which committed version of `specPath` to compare with. With `ref` (a branch, tag or commit),
 * that one. Without: the last committed version when the file has uncommitted changes, else the
 * version before the last commit that changed it, so that a freshly committed edit is checked too.
 */
export function findBaseRevision(specPath: string, ref?: string): BaseRevision {
  const cwd = dirname(specPath);
  const file = `./${basename(specPath)}`;
  try {
    git(['rev-parse', '--is-inside-work-tree'], cwd);
  } catch {
    throw new Error(`${cwd} is not in a git work tree: give the earlier contract with --base FILE.`);
  }
  if (ref !== undefined) {
    let commit: string;
    try {
      commit = git(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], cwd);
    } catch {
      throw new Error(`"${ref}" is neither a file nor a git revision (a branch, a tag, a commit such as HEAD~1).`);
    }
    try {
      git(['cat-file', '-e', `${commit}:${file}`], cwd);
    } catch {
      throw new Error(`${basename(specPath)} does not exist at ${subject(commit, cwd)}; name a revision that has it.`);
    }
    return { found: true, commit, description: `its version at ${ref} (${subject(commit, cwd)})` };
  }
  // A repository without a commit yet (git init alone) has no history to read: git log fails there.
  const hasCommits = (() => {
    try {
      git(['rev-parse', '--verify', '--quiet', 'HEAD'], cwd);
      return true;
    } catch {
      return false;
    }
  })();
  const changes = hasCommits ? git(['log', '-2', '--format=%H', '--', file], cwd).split('\n').filter(Boolean) : [];
  if (changes.length === 0)
    return { found: false, description: `${basename(specPath)} has never been committed: no client can depend on an earlier version.` };
  if (git(['status', '--porcelain', '--', file], cwd) !== '') {
    return { found: true, commit: changes[0]!, description: `its last committed version (${subject(changes[0]!, cwd)})` };
  }
  const previous = changes[1];
  if (!previous)
    return {
      found: false,
      description: `${basename(specPath)} was first committed in ${subject(changes[0]!, cwd)}: there is no earlier version.`,
    };
  return { found: true, commit: previous, description: `its version before ${subject(changes[0]!, cwd)}, at ${subject(previous, cwd)}` };
}

/**
 * Writes the contract as it was at `commit` into `destination`: every YAML and JSON file of the
 * repository at that commit, where a contract split into files keeps its parts (in a folder above
 * its own too), in one `git archive` however many there are. Returns the path of its file there.
 */
export function writeContractAtRevision(specPath: string, commit: string, destination: string): string {
  const cwd = dirname(specPath);
  const top = git(['rev-parse', '--show-toplevel'], cwd);
  // A pathspec that matches no file fails the archive: only the extensions the commit has.
  const files = git(['ls-tree', '-r', '--name-only', commit], top).split('\n');
  const globs = ['yaml', 'yml', 'json'].filter((ext) => files.some((file) => file.endsWith(`.${ext}`))).map((ext) => `:(glob)**/*.${ext}`);
  let archive: Buffer;
  try {
    archive = execFileSync('git', ['archive', '--format=tar', commit, '--', ...globs], {
      cwd: top,
      stdio: ['ignore', 'pipe', 'pipe'],
      maxBuffer: 1024 * 1024 * 1024,
    });
  } catch (error) {
    throw new Error(`git archive of ${commit} failed: ${String((error as { stderr?: Buffer }).stderr ?? (error as Error).message).trim()}`);
  }
  mkdirSync(destination, { recursive: true });
  try {
    execFileSync('tar', ['-x', '-f', '-', '-C', destination], { input: archive, stdio: ['pipe', 'ignore', 'pipe'] });
  } catch (error) {
    throw new Error(
      `tar could not unpack the contract at ${commit}: ${String((error as { stderr?: Buffer }).stderr ?? (error as Error).message).trim()}`,
    );
  }
  return join(destination, relative(realpathSync(top), realpathSync(specPath)));
}
