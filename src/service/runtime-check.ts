import { createRequire } from 'node:module';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../shared/package-root.js';

// Imported first by main.ts: on a Node.js the project does not support, the service stops before
// anything else loads, with the message of scripts/check-node.cjs (the same check `npm ci` runs).
createRequire(import.meta.url)(join(PACKAGE_ROOT, 'scripts', 'check-node.cjs'));
