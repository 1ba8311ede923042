import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../src/shared/package-root.js';

/**
 * Node's arguments for the compiled service, taken from the `serve` script of package.json so that
 * the bench and the adversarial script run exactly what `npm run serve` runs (its V8 flags included).
 */
export function serveArguments(): string[] {
  const manifest = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { scripts?: Record<string, string> };
  const words = (manifest.scripts?.serve ?? '').trim().split(/ +/);
  // `exec` makes the shell npm starts become node, so that npm's signals reach the service.
  if (words[0] === 'exec') words.shift();
  if (words[0] !== 'node' || words.length < 2 || words.some((word) => /["'$\\]/.test(word))) {
    throw new Error(
      `package.json's serve script must be "[exec] node [flags] <entry>" without quoting, not ${JSON.stringify(manifest.scripts?.serve)}`,
    );
  }
  return words.slice(1);
}
