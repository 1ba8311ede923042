import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parseDocument } from 'yaml';
import { ROOT, run } from '../support/run.js';

/** What a command printed and how it ended. */
export interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * A throw-away copy of this repository, as a designer's clone would be: the files git tracks or
 * would track (uncommitted edits included), committed once in a git repository of its own, so
 * that `check:breaking` has a base. node_modules is shared with this checkout, except the client
 * package, which points at the copy's own (its types are regenerated there).
 */
export class RepositoryCopy {
  private constructor(readonly dir: string) {}

  static async create(): Promise<RepositoryCopy> {
    const dir = mkdtempSync(join(tmpdir(), 'animal-store-designer-'));
    const listed = await run('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT });
    for (const file of listed.stdout.split('\0').filter(Boolean)) {
      const from = join(ROOT, file);
      try {
        cpSync(from, join(dir, file));
      } catch (error) {
        // A file deleted in the working tree but still in the index.
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
    }
    linkNodeModules(dir);
    const copy = new RepositoryCopy(dir);
    await copy.git('init', '-q', '-b', 'main');
    // The links to node_modules are no files of the repository (.gitignore's node_modules/ names folders, not links).
    mkdirSync(join(dir, '.git', 'info'), { recursive: true });
    writeFileSync(join(dir, '.git', 'info', 'exclude'), 'node_modules\n');
    await copy.commit('baseline: the repository as it was copied');
    await copy.git('tag', 'baseline');
    return copy;
  }

  /** Runs a command in the copy (npm scripts as a designer types them), with CI set unless `env` says otherwise. */
  async sh(command: string, args: string[], env: NodeJS.ProcessEnv = {}, timeoutMs = 600_000): Promise<Outcome> {
    return run(command, args, { cwd: this.dir, env: { CI: 'true', ...env }, timeoutMs });
  }

  npm(script: string, ...args: string[]): Promise<Outcome> {
    return this.sh('npm', ['run', '-s', script, ...(args.length > 0 ? ['--', ...args] : [])]);
  }

  private async git(...args: string[]): Promise<Outcome> {
    const outcome = await this.sh('git', ['-c', 'user.name=designer', '-c', 'user.email=designer@example.invalid', ...args]);
    if (outcome.code !== 0) throw new Error(`git ${args.join(' ')} failed in ${this.dir}: ${outcome.stderr}`);
    return outcome;
  }

  async commit(message: string): Promise<void> {
    await this.git('add', '-A');
    await this.git('commit', '-q', '--allow-empty', '-m', message);
  }

  /** Back to the copy as it was made: commits, edits, generated and untracked files undone. */
  async restore(): Promise<void> {
    await this.git('reset', '-q', '--hard', 'baseline');
    await this.git('clean', '-q', '-fd', '-e', 'node_modules');
  }

  /** Edits openapi.yaml as YAML (comments and layout of the rest kept). */
  editContract(edit: (contract: ReturnType<typeof parseDocument>) => void): void {
    const path = join(this.dir, 'openapi.yaml');
    const document = parseDocument(readFileSync(path, 'utf8'));
    edit(document);
    writeFileSync(path, document.toString({ lineWidth: 0 }));
  }

  write(file: string, text: string): void {
    mkdirSync(dirname(join(this.dir, file)), { recursive: true });
    writeFileSync(join(this.dir, file), text);
  }

  /** Rewrites a file of the copy with `change`, which must change it. */
  edit(file: string, change: (text: string) => string): void {
    const path = join(this.dir, file);
    const before = readFileSync(path, 'utf8');
    const after = change(before);
    if (after === before) throw new Error(`the edit of ${file} changed nothing: its anchor moved`);
    writeFileSync(path, after);
  }

  /** The files changed, added or removed since the copy was made, by path. */
  async changedFiles(): Promise<string[]> {
    const status = await this.git('status', '--porcelain', '--untracked-files=all');
    return status.stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => line.slice(3))
      .sort();
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/**
 * node_modules of the copy: a link to each package of this checkout's, but for the workspace's
 * own client package, which is linked to the copy's packages/client.
 */
function linkNodeModules(dir: string): void {
  const source = join(ROOT, 'node_modules');
  const target = join(dir, 'node_modules');
  mkdirSync(target);
  for (const entry of readdirSync(source)) {
    if (entry === '@animal-store') {
      mkdirSync(join(target, entry));
      symlinkSync(join(dir, 'packages', 'client'), join(target, entry, 'client'), 'dir');
    } else if (entry === 'contract-kit') {
      symlinkSync(join(dir, 'packages', 'contract-kit'), join(target, entry), 'dir');
    } else {
      symlinkSync(join(source, entry), join(target, entry));
    }
  }
  // A workspace package's own dependencies, where npm installed versions the root does not hold.
  for (const name of readdirSync(join(ROOT, 'packages'))) {
    const own = join(ROOT, 'packages', name, 'node_modules');
    if (existsSync(own)) symlinkSync(own, join(dir, 'packages', name, 'node_modules'), 'dir');
  }
}
