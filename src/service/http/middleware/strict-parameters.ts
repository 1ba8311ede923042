import type { RequestHandler } from 'express';
import type { OperationInfo } from '../../../contract/operations.js';
import { parameterProblems } from '../../../contract/strict-parameters.js';
import { InvalidRequestError } from '../errors/invalid-request-error.js';

/**
 * Refuses, before the validator sees them, a query parameter given more than once and an integer
 * parameter not written in plain decimal digits (src/contract/strict-parameters.ts). Which
 * parameters are integers comes from the operation in the contract.
 */
export function strictParameters(op: OperationInfo): RequestHandler {
  return (req, _res, next) => {
    const details = parameterProblems(op, req.query, req.params as Record<string, string>);
    if (details.length > 0) throw new InvalidRequestError(details);
    next();
  };
}
