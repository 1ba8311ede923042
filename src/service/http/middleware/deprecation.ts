import type { RequestHandler } from 'express';
import type { Clock } from '../../clock.js';
import { deprecationHeaders, type OperationInfo } from '../../../contract/operations.js';
import { GoneError } from '../errors/gone-error.js';

/**
 * For a deprecated operation, the step that puts `Deprecation`, `Sunset` and a successor `Link`
 * on every response of it (mount it before anything that can refuse the request); none for
 * another operation.
 * @see RFC 9745 (Deprecation), RFC 8594 (Sunset), RFC 8288 (Link)
 */
export function deprecationNotice(op: OperationInfo, basePath: string): RequestHandler[] {
  const values = deprecationHeaders(op, basePath);
  if (!values) return [];
  return [
    (_req, res, next) => {
      res.set(values);
      next();
    },
  ];
}

/** For a deprecated operation, the step that answers 410 once its sunset date has passed; none for another. */
export function sunsetGate(op: OperationInfo, basePath: string, clock: Clock): RequestHandler[] {
  const values = deprecationHeaders(op, basePath);
  if (!values) return [];
  const sunsetMs = Date.parse(op.sunset!);
  const gone = `${op.method.toUpperCase()} ${op.path} was removed on ${values.Sunset}; use ${basePath}${op.successor} instead.`;
  return [
    (_req, _res, next) => {
      if (clock.now() >= sunsetMs) throw new GoneError(gone);
      next();
    },
  ];
}
