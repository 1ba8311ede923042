import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../src/shared/package-root.js';

/** How `npm run serve` starts the service: the variables it sets, and node's arguments. */
export interface ServeCommand {
  env: Record<string, string>;
  args: string[];
}

/**
 * A script of package.json (`serve` by default; `start` for the development start),
 * "[exec] [env NAME=value...] node [flags] <entry>", read so that the bench and the adversarial
 * script run exactly what `npm run serve` runs (its variables and V8 flags included).
 */
export function serveCommand(script: 'serve' | 'start' = 'serve'): ServeCommand {
  const manifest = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { scripts?: Record<string, string> };
  const words = (manifest.scripts?.[script] ?? '').trim().split(/ +/);
  const unusable = () =>
    new Error(
      `package.json's ${script} script must be "[exec] [env NAME=value...] node [flags] <entry>" without quoting, not ${JSON.stringify(manifest.scripts?.[script])}`,
    );
  // Read word by word, as the shell would read it only without quotes, variables or escapes.
  if (words.some((word) => /["'$\\]/.test(word))) throw unusable();
  // `exec` makes the shell npm starts become node, so that npm's signals reach the service.
  if (words[0] === 'exec') words.shift();
  const env: Record<string, string> = {};
  if (words[0] === 'env') {
    words.shift();
    while (/^[A-Z_][A-Z0-9_]*=/.test(words[0] ?? '')) {
      const assignment = words.shift()!;
      const equals = assignment.indexOf('=');
      env[assignment.slice(0, equals)] = assignment.slice(equals + 1);
    }
  }
  if (words[0] !== 'node' || words.length < 2) throw unusable();
  return { env, args: words.slice(1) };
}

/**
 * How a server of bench/servers/ is started: its file through tsx, which resolves `contract-kit`
 * as a project that installed the kit does, to the package's compiled dist/ (bench/tsconfig.packed.json
 * has none of the root tsconfig's paths into the kit's sources). From the sources, esbuild's name
 * wrappers and source maps cost the kit 1-9 % of its requests a second (4-path contract, five
 * alternated rounds: 6,898-8,407 against 6,939-8,649). The bench builds dist/ first (buildKit).
 */
export const benchServer = (file: string, env: Record<string, string> = {}) => ({
  args: ['--import', 'tsx', `bench/servers/${file}`],
  env: { TSX_TSCONFIG_PATH: join('bench', 'tsconfig.packed.json'), ...env },
});

/** Compiles contract-kit into its dist/ (a few seconds), which the bench's servers import. */
export function buildKit(): void {
  execFileSync('npm', ['run', '-s', 'build', '-w', 'contract-kit'], { cwd: PACKAGE_ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
}
