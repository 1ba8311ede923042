import type { NextFunction, Request, RequestHandler, Response } from 'express';

/**
 * Runs middleware in order as one Express middleware, with Express 5's rules: a step ends by
 * calling `next()` (the following step runs), `next(error)` or throwing (the error goes to the
 * app's error handler, and no later step runs), or by answering; a returned promise that rejects
 * counts as a throw. `next('route')` goes on with the next step, as Express's router goes on with
 * the next middleware; `next('router')` leaves the pipeline as it would leave a router. Mounting
 * each step with `app.use` gives the same order, but the router then runs its layer-matching and
 * bookkeeping between every two steps of every request.
 */
export function pipeline(steps: readonly RequestHandler[]): RequestHandler {
  const list = [...steps];
  return (req: Request, res: Response, done: NextFunction) => {
    let index = 0;
    let settled = false;
    const fail = (error: unknown) => {
      if (settled) return;
      settled = true;
      done(error ?? new Error('A middleware promise was rejected without a reason'));
    };
    const next: NextFunction = (error?: unknown) => {
      if (settled) return;
      if (error === 'router') {
        settled = true;
        return done(error);
      }
      // From a middleware, Express's router takes next('route') as next(): the next step runs.
      if (error && error !== 'route') return fail(error);
      const step = list[index++];
      if (!step) {
        settled = true;
        return done();
      }
      try {
        const result = step(req, res, next);
        if (isThenable(result)) result.then(undefined, fail);
      } catch (thrown) {
        fail(thrown);
      }
    };
    next();
  };
}

const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  value !== null && typeof value === 'object' && typeof (value as PromiseLike<unknown>).then === 'function';
