import type { IncomingMessage as Message, ServerResponse as Answer } from 'node:http';
import { createRequire } from 'node:module';
import { Socket } from 'node:net';
import type { Request, RequestHandler, Response } from 'express';
import { isAddedMethod } from '../contract/methods.js';
import type { Operation } from '../contract/operations.js';
import { essenceOf, kindOf, type BodyKind } from './media-types.js';
import { coercesBody, isValidatorError } from './validation.js';
import { pathParameterNames, VALIDATOR_METHOD, validatorUrl } from './validator-document.js';
import type { OperationValidators, ValidatorProgress } from './validators.js';

// Required, not imported: an ES import of node:http loads undici (nodejs/node#59686).
const { IncomingMessage, ServerResponse } = createRequire(import.meta.url)('node:http') as {
  IncomingMessage: typeof Message;
  ServerResponse: typeof Answer;
};

/**
 * When a contract server compiles each operation's validator: `background`, once contractServer
 * has returned, one operation at a time between requests; `lazy`, on each operation's first
 * request; `blocking`, as `background`, but the router holds every request until all are
 * compiled.
 */
export type WarmUp = 'background' | 'lazy' | 'blocking';

/** What ContractServer.ready resolves with: the validators' progress once done, and how long it took. */
export interface ValidatorsReady extends ValidatorProgress {
  /** Milliseconds from contractServer to the last operation compiled (0 with warmUp `lazy`). */
  milliseconds: number;
}

/** A request the warm-up makes to an operation's validator: its body's Content-Type (none: no body) and kind. */
interface Variant {
  contentType: string | undefined;
  kind: BodyKind | 'none';
}

/**
 * The requests whose checks an operation's first requests compile (the validator compiles them
 * per media type of the request): one per concrete media type of its body (a range such as
 * `application/*` names none), and one without a body where it may go without, or names only
 * ranges (which compiles the rest of its checks).
 */
function variantsOf(op: Operation): Variant[] {
  const variants: Variant[] = [];
  for (const key of Object.keys(op.requestBody?.content ?? {})) {
    const essence = essenceOf(key);
    if (essence && !essence.includes('*') && !variants.some((v) => v.contentType === essence))
      variants.push({ contentType: essence, kind: kindOf(essence) });
  }
  if (!op.requestBody?.required || variants.length === 0) variants.push({ contentType: undefined, kind: 'none' });
  return variants;
}

/** The first success status an operation declares, or 200: the answer the warm-up's response check runs for. */
function successOf(op: Operation): number {
  const status = Object.keys(op.responses).find((key) => /^2\d\d$/.test(key));
  return status === undefined ? 200 : Number(status);
}

/** A body of each kind as the body step would have read it: what the warm-up gives the validator to check. */
const PLACEHOLDERS: Record<BodyKind | 'none', () => unknown> = {
  json: () => ({}),
  form: () => ({}),
  multipart: () => ({}),
  xml: () => '',
  text: () => '',
  binary: () => Buffer.alloc(0),
  none: () => undefined,
};

/**
 * Runs each middleware in turn, the next one even after an error: the warm-up wants every one of
 * them to compile what it checks, not its made-up request to pass. Resolves with the errors
 * passed on, those passed later too (a response check fails through its middleware's `next`).
 */
async function throughEach(handlers: readonly RequestHandler[], req: Request, res: Response, errors: unknown[]): Promise<void> {
  for (const handler of handlers) {
    await new Promise<void>((resolve) => {
      const next = (error?: unknown) => {
        if (error !== undefined && error !== null) errors.push(error);
        resolve();
      };
      try {
        const result: unknown = handler(req, res, next);
        if (result instanceof Promise) result.catch(next);
      } catch (thrown) {
        next(thrown ?? new Error('a middleware threw nothing'));
      }
    });
  }
}

/** The errors of a warm-up request that are no refusal of it: what the validator could not compile. */
type Failures = unknown[];

/** How the warm-up runs a request through an operation's validator; resolves with what it could not compile. */
type Injector = (op: Operation, variant: Variant) => Promise<Failures>;

/**
 * Runs made-up requests through the validators in an Express app of the warm-up's own, as Node's
 * server would hand it one: an IncomingMessage on a socket that is not connected, and its
 * ServerResponse, whose answer goes nowhere.
 */
async function injector(validators: OperationValidators, validateResponses: boolean): Promise<Injector> {
  const { default: express } = await import('express');
  const app = express();
  let job: ((req: Request, res: Response) => Promise<void>) | undefined;
  app.use((req, res) => void job!(req, res));
  return (op, { contentType, kind }) =>
    new Promise<Failures>((resolve) => {
      const errors: unknown[] = [];
      job = async (req, res) => {
        try {
          req.body = PLACEHOLDERS[kind]();
          await throughEach(validators.handlers(op, coercesBody(kind)), req, res, errors);
          // An answer compiles the response checks (its status's runs once); its null body is refused.
          if (validateResponses && !res.headersSent) res.status(successOf(op)).json(null);
        } catch (error) {
          errors.push(error);
        }
        resolve(errors.filter((error) => !isValidatorError(error)));
      };
      const names = pathParameterNames(op);
      const req = new IncomingMessage(new Socket());
      // As the validate step shows it: a method the validator does not know as the one its document gives it.
      req.method = (isAddedMethod(op.method) ? VALIDATOR_METHOD : op.method).toUpperCase();
      req.url = validatorUrl(validators.slot(op), names, Object.fromEntries(names.map((name) => [name, 'x'])), '/');
      req.headers = contentType ? { 'content-type': contentType } : {};
      app(req, new ServerResponse(req));
    });
}

/** Runs every variant of `op` through its validator; the first failure, or undefined. */
async function warmOperation(inject: Injector, op: Operation): Promise<unknown> {
  for (const variant of variantsOf(op)) {
    const [failure] = await inject(op, variant);
    if (failure !== undefined) return failure;
  }
  return undefined;
}

/** A line naming the operations whose validator could not be compiled, and why. */
function failureLine(failures: readonly [Operation, unknown][]): string {
  const reason = (error: unknown) => (error instanceof Error ? error.message : String(error)).split('\n')[0];
  const named = failures.slice(0, 5).map(([op, error]) => `${op.name} (${op.method.toUpperCase()} ${op.path}): ${reason(error)}`);
  const more = failures.length > 5 ? `; and ${failures.length - 5} more` : '';
  const count = failures.length === 1 ? '1 operation answers' : `${failures.length} operations answer`;
  return `${count} 500, the validator failing to compile: ${named.join('; ')}${more}`;
}

/**
 * Compiles the validator of each operation, one operation per turn of the event loop, so that a
 * server already listening goes on answering meanwhile; an operation that fails in its path's
 * validator is tried in one of its own (see OperationValidators.isolate). Never rejects: an
 * operation whose validator cannot be compiled is counted in `failed`, and named in a warning.
 */
export async function warmUpValidators(
  validators: OperationValidators,
  options: { validateResponses: boolean; startedAt: number; warn: (message: string) => void },
): Promise<ValidatorsReady> {
  const failures: [Operation, unknown][] = [];
  try {
    const inject = await injector(validators, options.validateResponses);
    for (const op of validators.operations) {
      let failure = await warmOperation(inject, op);
      if (failure !== undefined && validators.isolate(op)) failure = await warmOperation(inject, op);
      validators.warmed(op, failure === undefined ? 'compiled' : 'failed');
      if (failure !== undefined) failures.push([op, failure]);
      await new Promise((resolve) => setImmediate(resolve));
    }
  } catch (error) {
    // Nothing here should throw; if it does, the operations left compile on their first request.
    options.warn(`the validators' warm-up stopped: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (failures.length > 0) options.warn(failureLine(failures));
  return { ...validators.progress(), milliseconds: performance.now() - options.startedAt };
}
