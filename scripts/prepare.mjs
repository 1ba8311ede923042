// npm's prepare (after npm ci / npm install): builds the client, the service and the docs. In a
// production install (npm ci --omit=dev) the tools that build are absent: it says so and builds
// nothing, rather than failing the install; run a release there (npm run release, elsewhere).
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';

try {
  createRequire(import.meta.url).resolve('typescript');
} catch {
  process.stdout.write(
    'prepare: the development dependencies are not installed (npm ci --omit=dev), so nothing is built.\n' +
      'To run in production, build a release where they are (npm run release) and run node release/server.js.\n',
  );
  process.exit(0);
}
execFileSync('npm', ['run', '-s', 'build'], { stdio: 'inherit' });
execFileSync('npm', ['run', '-s', 'docs'], { stdio: 'inherit' });
