// What `contract-kit generate` writes as generated/handlers.ts, for a contract without operations:
// the handler map, checked as a project's is.
import type { Handlers } from 'contract-kit';
import type { Context } from '../src/context.js';

/** The handler of every operation, by name; each lives in its own file. */
export const handlers = {} satisfies Handlers<Record<string, never>, Context>;
