import type { Request, RequestHandler } from 'express';
import { hoistDeepSchemaRefs } from '../contract/deep-refs.js';
import { NODE_METHODS } from '../contract/methods.js';
import { listOperations, type Operation } from '../contract/operations.js';
import { basePathsOf } from '../contract/servers.js';
import { DEFAULT_BODY_LIMIT_BYTES } from './close-unread-body.js';
import { MAX_DEPTH, MAX_PROPERTIES } from './strict-json.js';
import { hostRefusal } from './host-header.js';
import { HttpProblem, invalidRequest, problemDetails, type KitProblemCode } from './problems.js';
import { setState, RequestState } from './request-state.js';
import { ContractSchemas } from '../testing/schemas.js';
import { ContractErrors } from './contract-errors.js';
import { crossOriginOf } from './cors.js';
import { answerOfBodies, contractErrorHandler, takeRequest } from './error-handler.js';
import { orderedSteps, type ListedStep } from './phases.js';
import { securitySchemesOf, triedInOrder } from './security.js';
import type { ContractServer, ContractServerOptions } from './server-options.js';
import { checkOperation, warnOfOtherErrorBodies, warnOfSchemaFixes, warnOfUnserved } from './start-warnings.js';
import { OperationRouter, parameterPatterns } from './operation-router.js';
import { contextOf } from './handlers.js';
import { chain, stepsOf } from './steps.js';
import { OpenStreams } from './streams.js';
import { unwrittenHandler } from './stubs.js';
import { refuser, undispatched } from './unmatched.js';
import { OperationValidators } from './validators.js';
import { warmUpValidators, type ValidatorsReady } from './warm-up.js';

export type { ContractServer, ContractServerOptions } from './server-options.js';
export { unmatchedOf, type Unmatched } from './unmatched.js';

/** The default of ContractServerOptions.streamedBodyLimitBytes: 64 MiB. */
const STREAMED_BODY_LIMIT_BYTES = 64 * 1024 * 1024;

/** The default of ContractServerOptions.keepAliveMs: 15 s, which the HTML standard suggests for server-sent events. */
const KEEP_ALIVE_MS = 15_000;

/** The default of ContractServerOptions.allErrorsUpToBytes: 16 KiB. */
const ALL_ERRORS_UP_TO_BYTES = 16 * 1024;

interface Route {
  op: Operation;
  basePath: string;
  run: RequestHandler;
}

/**
 * A base path as the router matches it: the router decodes the request's path and matches path
 * keys as written, so `/my%20api` is `/my api`; a `%25` it leaves as it is, and so does this, as
 * it does a path with an escape that decodes to nothing (`/100%`).
 */
function routedPath(basePath: string): string {
  try {
    return basePath
      .split(/%25/i)
      .map((part) => decodeURI(part))
      .join('%25');
  } catch {
    return basePath;
  }
}

/**
 * Serves a contract on Express 5: each operation routed once (find-my-way: the cost of finding
 * it does not grow with the number of paths), through its steps (see Steps): deprecation
 * headers, security from the contract, the body read per its media type, express-openapi-
 * validator given that operation alone, the handler; the application's steps run among them by
 * phase (see PHASES). Refusals and failures go through one error formatter (RFC 9457 by default).
 * @throws ContractError for a contract it cannot serve, naming the place
 */
export function contractServer<Context extends object = object>(options: ContractServerOptions<Context>): ContractServer {
  const startedAt = performance.now();
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
  const contractErrors = options.errors ? undefined : new ContractErrors(doc, operations);
  if (contractErrors?.fallsBack) warn(`${label}: ${contractErrors.summary()}`);
  if (options.errors === problemDetails) warnOfOtherErrorBodies(operations, label, warn);
  const unknown = warnOfSchemaFixes(doc, label, warn);
  const validateResponses = options.validateResponses ?? true;
  let schemas: ContractSchemas | undefined;
  // Where a $ref reaches inside a schema, the validator gets the contract with that schema made a component.
  const validators = new OperationValidators(hoistDeepSchemaRefs(doc) ?? doc, operations, {
    validateResponses,
    formats: Object.fromEntries(unknown.map((name) => [name, () => true])),
    fits: (schema, value) => (schemas ??= new ContractSchemas(doc)).accepts(schema, value),
    onWarning: (message) => warn(`${label}: ${message}`),
  });
  const streams = new OpenStreams({
    doc,
    schemas: () => (schemas ??= new ContractSchemas(doc)),
    keepAliveMs: options.keepAliveMs ?? KEEP_ALIVE_MS,
    onError: options.onError,
  });
  const stepOptions = {
    doc,
    streams,
    withKit: contextOf((message) => warn(`${label}: ${message}`)),
    limits: {
      limitBytes: options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES,
      streamLimitBytes: options.streamedBodyLimitBytes ?? STREAMED_BODY_LIMIT_BYTES,
      maxProperties: options.maxProperties ?? MAX_PROPERTIES,
      maxDepth: options.maxDepth ?? MAX_DEPTH,
    },
    validators,
    allErrorsUpToBytes: options.allErrorsUpToBytes ?? ALL_ERRORS_UP_TO_BYTES,
    now: options.now ?? Date.now,
    context: options.context,
    beforeSend: options.beforeSend,
  };
  const realm = options.realm ?? doc.info.title;
  const router = new OperationRouter<Route>();
  const unwritten: string[] = [];
  const listings = new Map<string, ListedStep[]>();
  for (const op of operations) {
    checkOperation(op, label);
    // A method Node's HTTP parser does not take reaches no server: the operation is named at start (its defect).
    if (!NODE_METHODS.includes(op.method.toUpperCase())) continue;
    const handler = options.handlers[op.name];
    const reason = op.defect === null ? unwrittenHandler(op, handler) : null;
    if (reason) unwritten.push(reason);
    const kitSteps = stepsOf(op, { requirements: triedInOrder(op.security), schemes, verifiers, realm }, handler, stepOptions);
    const { listed, run } = orderedSteps(op, kitSteps, options.steps ?? {});
    listings.set(op.name, listed);
    const route = { op, run: chain(run) };
    for (const basePath of basePaths)
      router.add(
        op.method.toUpperCase(),
        `${routedPath(basePath)}${op.urlPath}`,
        op.dispatch,
        { ...route, basePath },
        parameterPatterns(doc, op.parameters),
      );
  }
  warnOfUnserved(operations, unwritten, label, warn);
  const methods = [...new Set(operations.map((op) => op.method.toUpperCase()))];
  const answerOf = answerOfBodies(contractErrors ? { contractErrors } : { errors: options.errors! });
  const errorHandler = contractErrorHandler(doc, options, answerOf);
  const refuse = refuser(options.unmatched ?? [], errorHandler);

  const find = (method: string, path: string, asked: Parameters<typeof router.find>[2]) =>
    router.find(method, path, asked) ?? (method === 'HEAD' ? router.find('GET', path, asked) : null);

  const within = (path: string) => basePaths.some((base) => base === '' || path === base || path.startsWith(`${base}/`));

  const warmUp = options.warmUp ?? 'background';
  const ready: Promise<ValidatorsReady> =
    warmUp === 'lazy'
      ? Promise.resolve({ ...validators.progress(), milliseconds: 0 })
      : new Promise((resolve) => setImmediate(resolve)).then(() =>
          warmUpValidators(validators, { validateResponses, startedAt, warn: (message) => warn(`${label}: ${message}`) }),
        );
  let held = warmUp === 'blocking';
  if (held) void ready.then(() => (held = false));

  const contractRouter: RequestHandler = (req, res, next) => {
    if (held) return void ready.then(() => contractRouter(req, res, next));
    // Whatever its path: RFC 9112 has every server refuse a request without its one Host.
    const badHost = hostRefusal(req);
    if (badHost) {
      takeRequest(req, errorHandler);
      return next(badHost);
    }
    const at = req.url.indexOf('?');
    const found = find(req.method, req.path, { query: new URLSearchParams(at < 0 ? '' : req.url.slice(at + 1)), headers: req.headers });
    if (!found) {
      // Outside the base paths: another contract's, or the application's.
      if (!within(req.path)) return next();
      const allow = methods.filter((m) => find(m, req.path, null));
      if (allow.includes('GET') && !allow.includes('HEAD')) allow.push('HEAD');
      return refuse(allow.length > 0 ? { refusal: 'method_not_allowed', allow: allow.sort() } : { refusal: 'not_found' }, req, res, next);
    }
    takeRequest(req, errorHandler);
    if ('dispatch' in found) return next(invalidRequest(undispatched(found.dispatch)));
    const { value: route, params } = found;
    const state = new RequestState(route.op, route.basePath);
    state.params = params;
    setState(req, state);
    if (route.op.defect !== null)
      return next(new HttpProblem<KitProblemCode>(501, 'not_implemented', `${route.op.name} cannot be served: ${route.op.defect}.`));
    route.run(req, res, next);
  };

  const notFound: RequestHandler = (req: Request, res, next) => refuse({ refusal: 'not_found' }, req, res, next);

  const errorBodies = contractErrors ? contractErrors.summary() : 'every error body built by the errors function';
  return {
    router: contractRouter,
    notFound,
    errorHandler,
    operations,
    basePaths,
    errorBodies,
    crossOrigin: crossOriginOf(doc, operations),
    answerOf: (problem) => answerOf(problem, undefined, ''),
    ready,
    progress: () => validators.progress(),
    endStreams: () => streams.endAll(),
    openStreams: () => streams.count,
    stepsOf: (operation) => {
      const listed = listings.get(operation);
      if (!listed) throw new Error(`${label} has no operation ${operation}`);
      return listed.map((step) => ({ ...step }));
    },
  };
}
