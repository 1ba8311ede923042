import { relative } from 'node:path';
import { PACKAGE_ROOT } from '../shared/package-root.js';
import { writeContractCache } from './contract-cache.js';
import { SPEC_PATH } from './load-spec.js';
import { releasedContracts } from './released-contracts.js';

// `node dist/src/contract/parse-contracts.js`, what `npm run build` runs after compiling: the
// parsed copy of openapi.yaml and of each released contract (see contract-cache.ts).
for (const path of [SPEC_PATH, ...releasedContracts().map((released) => released.path)]) {
  const written = writeContractCache(path);
  process.stdout.write(`Parsed ${relative(PACKAGE_ROOT, path)} into ${relative(PACKAGE_ROOT, written)}\n`);
}
