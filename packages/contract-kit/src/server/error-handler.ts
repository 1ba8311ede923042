import type { ErrorRequestHandler, Request } from 'express';
import type { OpenApiDocument } from '../contract/document.js';
import type { Operation } from '../contract/operations.js';
import type { ContractErrors } from './contract-errors.js';
import { declaredContent } from './handlers.js';
import { HttpProblem, type KitProblemCode, type ProblemFormatter, type ProblemResponse } from './problems.js';
import { stateOf } from './request-state.js';
import type { ContractServerOptions } from './server-options.js';
import { isValidatorError, problemOfValidatorError } from './validation.js';

// The errorHandler of the contract that took a request: its errors are answered as that contract says, whichever errorHandler is mounted.
const OWNER = Symbol('contract-kit owner');
type Owned = Request & { [OWNER]?: ErrorRequestHandler };

/** Marks a request as taken by the contract whose errorHandler this is. */
export const takeRequest = (req: Request, errorHandler: ErrorRequestHandler): void => {
  (req as Owned)[OWNER] = errorHandler;
};

/** How a contract answers a problem: as `op` (or, for none, the contract) declares it, or through `errors`; null for no body. */
export type AnswerOf = (problem: HttpProblem, op: Operation | undefined, instance: string) => ProblemResponse | null;

/** The {@link AnswerOf} of a contract's declared error bodies, or of the application's `errors`. */
export const answerOfBodies =
  (bodies: { contractErrors: ContractErrors; errors?: undefined } | { contractErrors?: undefined; errors: ProblemFormatter }): AnswerOf =>
  (problem, op, instance) =>
    bodies.contractErrors
      ? bodies.contractErrors.answer(problem, op, instance)
      : bodies.errors(problem, { contentType: (op && declaredContent(op, problem.status)[0]) ?? 'application/problem+json', instance });

/**
 * The error step of a contract: its problem (an HttpProblem, the validator's refusal, the
 * application's problemOf, else a 500) answered with the contract's error body, or through
 * `errors`; a request another contract took goes to that contract's error step.
 */
export function contractErrorHandler(
  doc: OpenApiDocument,
  options: Pick<ContractServerOptions, 'problemOf' | 'onError'>,
  answerOf: AnswerOf,
): ErrorRequestHandler {
  const errorHandler: ErrorRequestHandler = (error, req, res, next) => {
    if (res.headersSent) return next(error);
    const owner = (req as Owned)[OWNER];
    if (owner !== undefined && owner !== errorHandler) return owner(error, req, res, next);
    const op = stateOf(req)?.operation;
    const problem =
      (error instanceof HttpProblem ? (error as HttpProblem) : undefined) ??
      (op && isValidatorError(error) ? problemOfValidatorError(error, doc, op, req) : undefined) ??
      options.problemOf?.(error) ??
      new HttpProblem<KitProblemCode>(500, 'internal_error', 'An internal error occurred.', [], {}, { cause: error });
    options.onError?.(error, problem, req);
    const instance = req.originalUrl.split('?')[0]!;
    res.status(problem.status).set(problem.headers);
    const answer = answerOf(problem, op, instance);
    if (answer === null) return void res.end();
    const { contentType, body } = answer;
    res.type(contentType);
    // As text: the response validator, which wraps res.json, must not judge an error body.
    res.send(typeof body === 'string' ? body : JSON.stringify(body));
  };
  return errorHandler;
}
