import { Router, type RequestHandler } from 'express';
import type { OperationInfo } from '../../spec/operations.js';
import type { Clock } from '../../clock.js';
import { GoneError } from '../errors/gone-error.js';

/**
 * For each deprecated operation of the contract: `headers` puts `Deprecation`, `Sunset` and a
 * successor `Link` on every response of it (mount it before anything that can refuse the
 * request); `gate` answers 410 once the sunset date has passed (mount it after rate limiting).
 * @see RFC 9745 (Deprecation), RFC 8594 (Sunset), RFC 8288 (Link)
 */
export function deprecation(operations: OperationInfo[], basePath: string, clock: Clock): { headers: Router; gate: Router } {
  const headers = Router();
  const gate = Router();
  for (const op of operations) {
    if (!op.deprecated || !op.sunset || !op.deprecatedAt || !op.successor) continue;
    const sunsetMs = Date.parse(op.sunset);
    const values = {
      Deprecation: `@${Math.floor(Date.parse(op.deprecatedAt) / 1000)}`,
      Sunset: new Date(sunsetMs).toUTCString(),
      Link: `<${basePath}${op.successor}>; rel="successor-version"`,
    };
    const setHeaders: RequestHandler = (_req, res, next) => {
      res.set(values);
      next();
    };
    const refuseAfterSunset: RequestHandler = (_req, _res, next) => {
      if (clock.now() >= sunsetMs) {
        throw new GoneError(
          `${op.method.toUpperCase()} ${op.path} was removed on ${values.Sunset}; use ${basePath}${op.successor} instead.`,
        );
      }
      next();
    };
    headers[op.method](op.expressPath, setHeaders);
    gate[op.method](op.expressPath, refuseAfterSunset);
  }
  return { headers, gate };
}
