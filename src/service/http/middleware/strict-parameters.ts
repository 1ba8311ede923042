import type { RequestHandler } from 'express';
import type { OpenApiDocument } from '../../../contract/load-spec.js';
import type { OperationInfo } from '../../../contract/operations.js';
import { parameterProblems, strictParametersOf } from '../../../contract/strict-parameters.js';
import { InvalidRequestError } from '../errors/invalid-request-error.js';

/**
 * Refuses, before the validator sees them, a query parameter given more than once and an integer
 * parameter not written in plain decimal digits (src/contract/strict-parameters.ts). Which
 * parameters are integers comes from the operation in the contract.
 */
export function strictParameters(doc: OpenApiDocument, op: OperationInfo): RequestHandler {
  const strict = strictParametersOf(doc, op);
  return (req, _res, next) => {
    const details = parameterProblems(strict, req.query, req.params as Record<string, string>);
    if (details.length > 0) throw new InvalidRequestError(details);
    next();
  };
}
