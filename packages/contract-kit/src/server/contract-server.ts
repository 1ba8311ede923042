import type { ErrorRequestHandler, Request, RequestHandler } from 'express';
import FindMyWay from 'find-my-way';
import { ContractError, type OpenApiDocument } from '../contract/document.js';
import { listOperations, type Operation } from '../contract/operations.js';
import { basePathsOf } from '../contract/servers.js';
import { DEFAULT_BODY_LIMIT_BYTES } from './close-unread-body.js';
import { MAX_PROPERTIES } from './strict-json.js';
import { declaredContent, type AnyHandler, type HandlerResult } from './handlers.js';
import { HttpProblem, invalidRequest, problemDetails, type KitProblemCode, type ProblemFormatter } from './problems.js';
import { setState, stateOf, RequestState } from './request-state.js';
import { unknownFormats } from './schema-fixes.js';
import { checkRequirements, securitySchemesOf, triedInOrder, type Verifier } from './security.js';
import { chain, stepsOf, type Steps } from './steps.js';
import { unwrittenHandler } from './stubs.js';
import { isValidatorError, problemOfValidatorError } from './validation.js';

/** How {@link contractServer} serves a contract. */
export interface ContractServerOptions<Context extends object = object> {
  /** The contract, as loadContract read it. */
  contract: OpenApiDocument;
  /** Where the contract came from, for messages (its file). @default 'the contract' */
  label?: string;
  /**
   * The handler of each operation, by its name (see operationNames). One missing answers 501.
   * Check the map against the contract with `satisfies Handlers<Operations, Context>`.
   */
  handlers: Readonly<Record<string, AnyHandler<Context> | undefined>>;
  /** One verifying function per security scheme of the contract, by its name. A scheme without one refuses every request. */
  security?: Readonly<Record<string, Verifier | undefined>>;
  /** Builds the error body of every refusal and failure. @default problemDetails (RFC 9457) */
  errors?: ProblemFormatter;
  /** The base paths to serve under. @default the path of each of the contract's servers (see basePathsOf) */
  basePath?: string | readonly string[];
  /** Serve under this server's path only: its description or URL. */
  server?: string;
  /** The largest request body read, in bytes, once inflated. @default 1 MiB */
  bodyLimitBytes?: number;
  /** The most properties one object of a JSON body may have. @default 256 */
  maxProperties?: number;
  /** Check every JSON answer of a handler against the contract (a mismatch is a 500). @default true */
  validateResponses?: boolean;
  /**
   * The steps of each operation, in the order they run: the kit's (`steps`), with the
   * application's own where it wants them. @default the kit's steps in the order of Steps
   */
  pipeline?: (op: Operation, steps: Steps) => readonly RequestHandler[];
  /** Steps run before a 404 or 405 (unmatchedOf tells which), such as a rate limit. @default none */
  unmatched?: readonly RequestHandler[];
  /** What the application adds to each handler's context. */
  context?: (req: Request, res: Parameters<RequestHandler>[1]) => Context;
  /**
   * Told what each handler answered, before it is sent (a throw refuses it instead): where an
   * application records an answer, such as an Idempotency-Key's.
   */
  beforeSend?: (result: HandlerResult, req: Request, res: Parameters<RequestHandler>[1]) => void | Promise<void>;
  /** The WWW-Authenticate realm. @default the contract's info.title */
  realm?: string;
  /** Turns an error of the application (not an HttpProblem) into the problem it is answered with; undefined: a 500. */
  problemOf?: (error: unknown) => HttpProblem | undefined;
  /** Told of every error answered (its problem) and every warning at start, for the application's log. @default console.warn for warnings */
  onError?: (error: unknown, problem: HttpProblem, req: Request) => void;
  onWarning?: (message: string) => void;
  /** Milliseconds since the epoch, for `x-sunset`. @default Date.now */
  now?: () => number;
}

/** An Express app's parts that serve a contract. */
export interface ContractServer {
  /**
   * Routes every request under the base paths to its operation's steps; under them, a path or
   * method the contract lacks gets 404 or 405. A request outside them goes on, to another
   * contract's router or the application's routes.
   */
  router: RequestHandler;
  /** Answers 404 (after the `unmatched` steps) to whatever reaches it: mount it after every router. */
  notFound: RequestHandler;
  /**
   * Answers any error with the contract's error body (mount it after everything else). With
   * several contracts, mount one: a request another contract's router took is answered as that
   * contract says.
   */
  errorHandler: ErrorRequestHandler;
  operations: Operation[];
  basePaths: string[];
}

/** Why a request was not routed, for the `unmatched` steps: a path the contract lacks, or a method its path lacks. */
export type Unmatched = { refusal: 'not_found' } | { refusal: 'method_not_allowed'; allow: string[] };
const UNMATCHED = Symbol('contract-kit unmatched');
// The errorHandler of the contract that took a request: its errors are answered as that contract says, whichever errorHandler is mounted.
const OWNER = Symbol('contract-kit owner');
type Owned = Request & { [OWNER]?: ErrorRequestHandler };
export const unmatchedOf = (req: Request): Unmatched | undefined => (req as Request & { [UNMATCHED]?: Unmatched })[UNMATCHED];

interface Route {
  op: Operation;
  basePath: string;
  names: string[];
  run: RequestHandler;
}

/** Whether a path's percent-encoding is valid (`/books/%ZZ` is not): one that is not is a 400, not a 404. */
function decodes(path: string): boolean {
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
}

/** `/v1` + `/books/{bookId}` → `/v1/books/:p0` for find-my-way: parameters by position, a literal `:` doubled. */
function routePath(basePath: string, path: string): { route: string; names: string[] } {
  const names: string[] = [];
  const literal = (text: string) => text.replace(/:/g, '::');
  const route =
    literal(basePath) +
    path
      .split(/(\{[^{}]+\})/)
      .map((part, i) => (i % 2 === 1 ? `:p${names.push(part.slice(1, -1)) - 1}` : literal(part)))
      .join('');
  return { route, names };
}

function checkOperation(op: Operation, label: string): void {
  const where = `${label}${op.pointer}`;
  for (const [key, value] of [
    ['x-deprecated-at', op.deprecatedAt],
    ['x-sunset', op.sunset],
  ] as const) {
    if (value !== null && Number.isNaN(Date.parse(value))) throw new ContractError(where, `${key} ${JSON.stringify(value)} is not a date`);
  }
  if (/[*()]/.test(op.path)) throw new ContractError(where, `the path ${op.path} has a character the router cannot take (*, ( or ))`);
  if (/[?#]/.test(op.path))
    throw new ContractError(where, `the path ${op.path} holds a query or a fragment (? or #), which OpenAPI paths may not`);
}

/**
 * Serves a contract on Express 5: each operation routed once (find-my-way: the cost of finding
 * it does not grow with the number of paths), through its steps (see Steps): deprecation
 * headers, security from the contract, the body read per its media type, express-openapi-
 * validator given that operation alone, the handler. Refusals and failures go through one
 * error formatter (RFC 9457 by default).
 * @throws ContractError for a contract it cannot serve, naming the place
 */
export function contractServer<Context extends object = object>(options: ContractServerOptions<Context>): ContractServer {
  const { contract: doc, label = 'the contract' } = options;
  const operations = listOperations(doc, label);
  const basePaths =
    options.basePath === undefined
      ? basePathsOf(doc, options.server)
      : typeof options.basePath === 'string'
        ? [options.basePath]
        : [...options.basePath];
  const schemes = securitySchemesOf(doc);
  const verifiers = options.security ?? {};
  const warn = options.onWarning ?? ((message: string) => console.warn(message));
  for (const name of schemes.keys())
    if (!verifiers[name]) warn(`security scheme ${name} has no verifying function: every request it secures is refused`);
  // No errors function, or the default one given by name (as contract-kit init's app does).
  if (!options.errors || options.errors === problemDetails) {
    const other = operations.flatMap((op) =>
      Object.entries(op.responses)
        .filter(([status]) => /^[45]|^default$/i.test(status))
        .flatMap(([status, response]) =>
          Object.keys(response.content)
            .filter((type) => !/problem\+json/i.test(type))
            .map((type) => `${op.pointer}/responses/${status} (${type})`),
        ),
    );
    if (other.length > 0)
      warn(
        `${label} declares error bodies other than RFC 9457's, such as ${other[0]}: give contractServer an errors function that builds them (src/errors.ts in a project of contract-kit init); until then every error is application/problem+json`,
      );
  }
  const unknown = unknownFormats(doc);
  if (unknown.length > 0) warn(`the validator does not know the format(s) ${unknown.join(', ')}: any value passes them`);
  const stepOptions = {
    doc,
    limits: { limitBytes: options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES, maxProperties: options.maxProperties ?? MAX_PROPERTIES },
    validateResponses: options.validateResponses ?? true,
    formats: Object.fromEntries(unknown.map((name) => [name, () => true])),
    now: options.now ?? Date.now,
    context: options.context,
    beforeSend: options.beforeSend,
  };
  const realm = options.realm ?? doc.info.title;
  const router = FindMyWay({ caseSensitive: true, ignoreTrailingSlash: false, maxParamLength: 8192 });
  const unwritten: string[] = [];
  for (const op of operations) {
    checkOperation(op, label);
    checkRequirements(op.security, schemes, `${label}${op.pointer}`);
    const handler = options.handlers[op.name];
    const reason = unwrittenHandler(op, handler);
    if (reason) unwritten.push(reason);
    const steps = stepsOf(op, { requirements: triedInOrder(op.security), schemes, verifiers, realm }, handler, stepOptions);
    const run = chain(options.pipeline ? options.pipeline(op, steps) : Object.values(steps));
    for (const basePath of basePaths) {
      const { route, names } = routePath(basePath, op.path);
      try {
        router.on(op.method.toUpperCase() as 'GET', route, () => undefined, { op, basePath, names, run } satisfies Route);
      } catch (cause) {
        throw new ContractError(`${label}${op.pointer}`, `cannot be routed: ${(cause as Error).message}`, { cause });
      }
    }
  }
  // One line however many: a contract served before its handlers are written has hundreds.
  if (unwritten.length > 0)
    warn(
      unwritten.length <= 10 ? unwritten.join('; ') : `${unwritten.slice(0, 10).join('; ')}; and ${unwritten.length - 10} more like them`,
    );
  const methods = [...new Set(operations.map((op) => op.method.toUpperCase()))];
  const unmatched = chain(options.unmatched ?? []);

  const find = (method: string, path: string) => {
    const found = router.find(method as 'GET', path) ?? (method === 'HEAD' ? router.find('GET', path) : null);
    // `/items/` is not `/items/{id}` with an empty id.
    if (!found || Object.values(found.params).some((value) => !value)) return null;
    return { route: found.store as Route, params: found.params as Record<string, string | undefined> };
  };

  const within = (path: string) => basePaths.some((base) => base === '' || path === base || path.startsWith(`${base}/`));

  // The unmatched steps, then 404 or 405.
  const refuse = (refusal: Unmatched, req: Request, res: Parameters<RequestHandler>[1], next: (error?: unknown) => void) => {
    (req as Owned)[OWNER] = errorHandler;
    if (!decodes(req.path)) return next(invalidRequest([{ field: 'path', message: 'is not valid percent-encoding' }]));
    (req as Request & { [UNMATCHED]?: Unmatched })[UNMATCHED] = refusal;
    unmatched(req, res, (error?: unknown) => {
      if (error !== undefined) return next(error);
      next(
        refusal.refusal === 'not_found'
          ? new HttpProblem<KitProblemCode>(404, 'not_found', `Nothing is at ${req.path}.`)
          : new HttpProblem<KitProblemCode>(405, 'method_not_allowed', `${req.path} does not take ${req.method}.`, [], {
              Allow: refusal.allow.join(', '),
            }),
      );
    });
  };

  const contractRouter: RequestHandler = (req, res, next) => {
    const found = find(req.method, req.path);
    if (!found) {
      // Outside the base paths: another contract's, or the application's.
      if (!within(req.path)) return next();
      const allow = methods.filter((m) => find(m, req.path));
      if (allow.includes('GET') && !allow.includes('HEAD')) allow.push('HEAD');
      return refuse(allow.length > 0 ? { refusal: 'method_not_allowed', allow: allow.sort() } : { refusal: 'not_found' }, req, res, next);
    }
    const { route, params } = found;
    const state = new RequestState(route.op, route.basePath);
    route.names.forEach((name, i) => (state.params[name] = params[`p${i}`] ?? ''));
    setState(req, state);
    (req as Owned)[OWNER] = errorHandler;
    route.run(req, res, next);
  };

  const notFound: RequestHandler = (req, res, next) => refuse({ refusal: 'not_found' }, req, res, next);

  const format = options.errors ?? problemDetails;
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
    const declared = op ? declaredContent(op, problem.status)[0] : undefined;
    const { contentType, body } = format(problem, {
      contentType: declared ?? 'application/problem+json',
      instance: req.originalUrl.split('?')[0]!,
    });
    res.status(problem.status).set(problem.headers).type(contentType);
    // As text: the response validator, which wraps res.json, must not judge an error body.
    res.send(typeof body === 'string' ? body : JSON.stringify(body));
  };

  return { router: contractRouter, notFound, errorHandler, operations, basePaths };
}
