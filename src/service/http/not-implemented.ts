import type { Logger } from 'pino';
import { notImplementedHint, NotImplementedError } from './errors/not-implemented-error.js';
import type { Handler, OperationId } from './handler-types.js';

/** The stubs made by {@link notImplemented}, so that the app can name them at start. */
const stubs = new WeakSet<object>();

/**
 * The handler `npm run generate` writes for an operation that has none yet: every call answers
 * `501 not_implemented`, and the app lists it in a warning at start (see {@link warnOfStubs}).
 */
export function notImplemented<K extends OperationId>(operationId: K): Handler<K> {
  const stub: Handler<K> = () => Promise.reject(new NotImplementedError(operationId));
  stubs.add(stub);
  return stub;
}

/** Says at start which operations still answer 501 (their handler is the generated stub), and what to write. */
export function warnOfStubs(operationIds: readonly string[], handlers: Readonly<Record<string, unknown>>, logger: Logger): void {
  const stubbed = operationIds.filter((id) => stubs.has(handlers[id] as object));
  if (stubbed.length === 0) return;
  logger.warn({ unimplemented: stubbed }, `${stubbed.map(notImplementedHint).join('; ')}. Until then each answers 501 not_implemented.`);
}
