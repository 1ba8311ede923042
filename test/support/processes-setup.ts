import { afterAll } from 'vitest';
import { cleanUpFile } from './processes.js';

// vitest's setup file, run before each test file: what a beforeAll started (a build, a server, a
// browser) and left running is stopped once the file's tests are done, even when the hook timed out.
afterAll(cleanUpFile);
