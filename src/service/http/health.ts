import type { RequestHandler } from 'express';
import type { Store } from '../store/store.js';
import { localsOf } from './middleware/locals.js';

/** `GET /healthz`: the process answers. */
export const healthz: RequestHandler = (_req, res) => {
  res.json({ status: 'ok' });
};

/**
 * `GET /readyz`: 200 while the store answers too, else 503 (a load balancer then sends requests
 * elsewhere); 503 until every operation's validator is compiled (`validatorsReady`), so that no
 * request sent on a 200 pays for compiling one, and 503 once the service is stopping. Requests
 * that come while the store is being asked share its answer: a flood of /readyz keeps at most
 * one query in flight.
 */
export function readyz(
  store: Pick<Store, 'ping'>,
  stopping: () => boolean = () => false,
  validatorsReady: () => boolean = () => true,
): RequestHandler {
  let readiness: Promise<Error | null> | null = null;
  return async (_req, res) => {
    if (stopping() || !validatorsReady()) {
      res.status(503).json({ status: 'unavailable' });
      return;
    }
    readiness ??= store.ping().then(
      () => null,
      (error: unknown) => (error instanceof Error ? error : new Error(String(error))),
    );
    const asked = readiness;
    const error = await asked;
    if (readiness === asked) readiness = null;
    if (!error) {
      res.json({ status: 'ready' });
      return;
    }
    // The reason (a host, a port, a path) is for the operator's log, not for anyone who asks.
    localsOf(res).log.warn({ reason: error.message }, 'not ready: the store does not answer');
    res.status(503).json({ status: 'unavailable' });
  };
}
