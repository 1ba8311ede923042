import { Router, type RequestHandler } from 'express';
import type { Store } from '../store/store.js';
import { localsOf } from './middleware/locals.js';

/**
 * The health checks, served without a key and limited per client address by `limit`:
 * `GET /healthz` answers while the process does; `GET /readyz` answers 200 while the store
 * answers too, else 503 (a load balancer then sends requests elsewhere).
 */
export function healthChecks(store: Pick<Store, 'ping'>, limit: RequestHandler): Router {
  const router = Router({ caseSensitive: true });
  router.get('/healthz', limit, (_req, res) => {
    res.json({ status: 'ok' });
  });
  // Requests that come while the store is being asked share its answer: a flood of /readyz keeps
  // at most one query in flight.
  let readiness: Promise<Error | null> | null = null;
  router.get('/readyz', limit, async (_req, res) => {
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
  });
  return router;
}
