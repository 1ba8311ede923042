import { NotImplementedError } from './errors/not-implemented-error.js';
import type { Handler, OperationId } from './handler-types.js';

/** The stubs made by {@link notImplemented}, so that the app can name them at start. */
const stubs = new WeakSet<object>();

/**
 * The handler `npm run generate` writes for an operation that has none yet: every call answers
 * `501 not_implemented`, and the app lists it in a warning at start (see {@link unimplemented}).
 */
export function notImplemented<K extends OperationId>(operationId: K): Handler<K> {
  const stub: Handler<K> = () => Promise.reject(new NotImplementedError(operationId));
  stubs.add(stub);
  return stub;
}

/** The operationIds among `operationIds` whose handler is still the generated stub. */
export function unimplemented(operationIds: readonly string[], handlers: Readonly<Record<string, unknown>>): string[] {
  return operationIds.filter((id) => {
    const handler = handlers[id];
    return typeof handler === 'function' && stubs.has(handler);
  });
}
