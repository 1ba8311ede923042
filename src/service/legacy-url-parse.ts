import { parse } from 'node:url';

// Imported by main.ts. Until Node.js 24 and 26 have warned once of url.parse() (DEP0169), which
// the validator calls on every request, they take a stack trace on each call (docs/architecture.md):
// one call here, with deprecation warnings silenced, settles that without printing anything.
const silenced = process.noDeprecation;
process.noDeprecation = true;
try {
  parse('/');
} finally {
  process.noDeprecation = silenced;
}
