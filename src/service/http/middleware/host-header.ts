import type { RequestHandler } from 'express';
import { hostRefusal } from 'contract-kit';

/**
 * A request without its one Host header (RFC 9112: none in HTTP/1.1, or more than one), whatever
 * its path: 400 with the address's rate-limit headers, read without counting (`addressHeaders`).
 * contract-kit's router refuses it too, for the paths it serves.
 */
export function refuseBadHost(addressHeaders: RequestHandler): RequestHandler {
  return (req, res, next) => {
    const refusal = hostRefusal(req);
    if (!refusal) return next();
    return addressHeaders(req, res, () => next(refusal));
  };
}
