import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { Logger } from 'pino';
import { localsOf } from './locals.js';

const VALID_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Gives every request an id (the client's `X-Request-Id` when it is a sane one), echoes it, and
 * logs one line per response. The Authorization header is never logged.
 */
export function requestContext(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const incoming = req.get('X-Request-Id');
    const requestId = incoming && VALID_REQUEST_ID.test(incoming) ? incoming : randomUUID();
    const locals = localsOf(res);
    locals.requestId = requestId;
    locals.log = logger.child({ requestId });
    res.setHeader('X-Request-Id', requestId);
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      locals.log.info(
        {
          method: req.method,
          path: req.originalUrl.split('?')[0],
          status: res.statusCode,
          ms: Number(process.hrtime.bigint() - started) / 1e6,
          keyId: locals.key?.id,
          ip: req.ip,
        },
        'request',
      );
    });
    next();
  };
}
