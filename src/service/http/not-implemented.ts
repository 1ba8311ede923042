import type { Logger } from 'pino';
import { notImplementedHint, NotImplementedError } from './errors/not-implemented-error.js';
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
function unimplemented(operationIds: readonly string[], handlers: Readonly<Record<string, unknown>>): string[] {
  return operationIds.filter((id) => {
    const handler = handlers[id];
    return typeof handler === 'function' && stubs.has(handler);
  });
}

/** Says at start which operations still answer 501 (their handler is the generated stub), and what to write. */
export function warnOfStubs(operationIds: readonly string[], handlers: Readonly<Record<string, unknown>>, logger: Logger): void {
  const stubbed = unimplemented(operationIds, handlers);
  if (stubbed.length === 0) return;
  logger.warn({ unimplemented: stubbed }, `${stubbed.map(notImplementedHint).join('; ')}. Until then each answers 501 not_implemented.`);
}
