import type { RequestHandler } from 'express';
import type { Clock } from '../../clock.js';
import { deprecationHeaders, type OperationInfo } from '../../../contract/operations.js';
import { GoneError } from '../errors/gone-error.js';
import { localsOf } from './locals.js';

/**
 * For each deprecated operation of the contract: `headers` puts `Deprecation`, `Sunset` and a
 * successor `Link` on every response of it (mount it before anything that can refuse the
 * request, after matchOperation); `gate` answers 410 once the sunset date has passed (mount it after rate limiting).
 * @see RFC 9745 (Deprecation), RFC 8594 (Sunset), RFC 8288 (Link)
 */
export function deprecation(
  operations: OperationInfo[],
  basePath: string,
  clock: Clock,
): { headers: RequestHandler; gate: RequestHandler } {
  const notices = new Map<OperationInfo, { sunsetMs: number; values: Record<string, string> }>();
  for (const op of operations) {
    const values = deprecationHeaders(op, basePath);
    if (values) notices.set(op, { sunsetMs: Date.parse(op.sunset!), values });
  }
  return {
    headers: (_req, res, next) => {
      const op = localsOf(res).operation;
      const notice = op && notices.get(op);
      if (notice) res.set(notice.values);
      next();
    },
    gate: (_req, res, next) => {
      const op = localsOf(res).operation;
      const notice = op && notices.get(op);
      if (op && notice && clock.now() >= notice.sunsetMs) {
        throw new GoneError(
          `${op.method.toUpperCase()} ${op.path} was removed on ${notice.values.Sunset}; use ${basePath}${op.successor} instead.`,
        );
      }
      next();
    },
  };
}
