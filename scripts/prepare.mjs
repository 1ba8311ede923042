// npm's prepare (after npm ci / npm install): builds the client, the service and the docs. In a
// production install (npm ci --omit=dev) the tools that build are absent: it says so and builds
// nothing, rather than failing the install; run a release there (npm run release, elsewhere).
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';

const { devDependencies } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const missing = Object.keys(devDependencies).filter(
  (name) => !existsSync(new URL(`../node_modules/${name}/package.json`, import.meta.url)),
);
if (missing.length > 0) {
  process.stdout.write(
    `prepare: the development dependencies are not installed (npm ci --omit=dev; ${missing.length} missing, ${missing.slice(0, 3).join(', ')} among them), so nothing is built.\n` +
      'To run in production, build a release where they are (npm run release) and run node release/server.js.\n',
  );
  process.exit(0);
}
execFileSync('npm', ['run', '-s', 'build'], { stdio: 'inherit' });
execFileSync('npm', ['run', '-s', 'docs'], { stdio: 'inherit' });
