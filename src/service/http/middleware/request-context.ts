import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { Logger } from 'pino';
import { NO_METRICS, type ServiceMetrics } from '../../metrics/service-metrics.js';
import { RequestLocals } from './locals.js';

const VALID_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** A `traceparent` header (W3C Trace Context, version 00 or a later one): its trace id, not all zeros. */
const TRACEPARENT = /^[0-9a-e][0-9a-f]-(?!0{32})([0-9a-f]{32})-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2}(?:-.*)?$/;

/** The metrics' operation label of a request the contract does not describe: bounded, never the path itself. */
function outsideTheContract(path: string): string {
  if (path === '/healthz' || path === '/readyz') return 'health';
  if (path === '/docs' || path.startsWith('/openapi.')) return 'docs';
  return 'none';
}

/**
 * Gives every request an id (the client's `X-Request-Id` when it is a sane one), echoes it, sets
 * up `res.locals` (see locals.ts) and logs one line per response. The Authorization header is
 * never logged.
 */
export function requestContext(logger: Logger, metrics: ServiceMetrics = NO_METRICS): RequestHandler {
  return (req, res, next) => {
    const incoming = req.headers['x-request-id'];
    const requestId = typeof incoming === 'string' && VALID_REQUEST_ID.test(incoming) ? incoming : randomUUID();
    const locals = new RequestLocals(requestId, logger);
    res.locals = locals;
    res.setHeader('X-Request-Id', requestId);
    const started = process.hrtime.bigint();
    // By 'finish' Node may have let go of the socket (a connection closed after an early answer,
    // such as a 413 before the body was read), and req.ip would then throw: keep the address.
    const remoteAddress = req.socket.remoteAddress;
    // W3C Trace Context: a caller's trace id goes into the log line, to follow a request across services.
    const traceparent = req.headers.traceparent;
    // Version 00 has exactly four fields (55 characters); later versions may add more.
    const traceId =
      typeof traceparent === 'string' && !(traceparent.startsWith('00-') && traceparent.length !== 55)
        ? TRACEPARENT.exec(traceparent)?.[1]
        : undefined;
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const path = req.originalUrl.split('?')[0]!;
      // The request's own line, without making it a child logger of its own.
      logger.info(
        {
          requestId,
          traceId,
          method: req.method,
          path,
          status: res.statusCode,
          ms,
          keyId: locals.key?.id,
          ip: req.socket ? req.ip : remoteAddress,
        },
        'request',
      );
      metrics.request(locals.operation?.operationId ?? outsideTheContract(path), req.method, res.statusCode, ms / 1000);
    });
    next();
  };
}
