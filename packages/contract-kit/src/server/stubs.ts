import type { Operation } from '../contract/operations.js';
import { HttpProblem, type KitProblemCode } from './problems.js';

/** Where each stub made by {@link notImplemented} says its handler is to be written. */
const stubs = new WeakMap<object, string | undefined>();

/**
 * The handler `contract-kit generate` writes for an operation that has none yet: every call
 * answers 501 `not_implemented`, and the server names it at start, with `file` (where the
 * handler is to be written), until it is replaced.
 */
export function notImplemented(name: string, file?: string): (input: unknown, context: unknown) => Promise<never> {
  const stub = () => Promise.reject(new HttpProblem<KitProblemCode>(501, 'not_implemented', `${name} is not implemented yet.`));
  stubs.set(stub, file);
  return stub;
}

/** Why an operation answers 501, for the warning at start; undefined when its handler is written. */
export function unwrittenHandler(op: Operation, handler: unknown): string | undefined {
  const route = `${op.name} (${op.method.toUpperCase()} ${op.path})`;
  if (typeof handler !== 'function') return `${route} has no handler: it answers 501`;
  if (!stubs.has(handler)) return undefined;
  const file = stubs.get(handler);
  return `${route} is not implemented yet: it answers 501 until ${file ? `${file} is written` : 'its handler is written'}`;
}
