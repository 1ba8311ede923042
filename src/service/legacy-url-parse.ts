import { parse } from 'node:url';

// Imported by main.ts. express-openapi-validator calls url.parse() on every request. Node.js 24
// and 26 warn once (DEP0169) when url.parse() is called from outside node_modules, and until
// they have warned they take a stack trace on every call to find out where it came from: 8 of
// the 117 µs of CPU a GET took. One call here, with deprecation warnings silenced for its
// length, settles that without printing anything.
const silenced = process.noDeprecation;
process.noDeprecation = true;
try {
  parse('/');
} finally {
  process.noDeprecation = silenced;
}
