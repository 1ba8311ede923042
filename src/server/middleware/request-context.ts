import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { Logger } from 'pino';
import { RequestLocals } from './locals.js';

const VALID_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Gives every request an id (the client's `X-Request-Id` when it is a sane one), echoes it, sets
 * up `res.locals` (see locals.ts) and logs one line per response. The Authorization header is
 * never logged.
 */
export function requestContext(logger: Logger): RequestHandler {
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
    res.on('finish', () => {
      // The request's own line, without making it a child logger of its own.
      logger.info(
        {
          requestId,
          method: req.method,
          path: req.originalUrl.split('?')[0],
          status: res.statusCode,
          ms: Number(process.hrtime.bigint() - started) / 1e6,
          keyId: locals.key?.id,
          ip: req.socket ? req.ip : remoteAddress,
        },
        'request',
      );
    });
    next();
  };
}
