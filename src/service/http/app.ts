import express, { type Express } from 'express';
import type { Logger } from 'pino';
import { handlers as generatedHandlers } from '../../../generated/handlers.js';
import type { Clock } from '../clock.js';
import type { KeyEnvironment } from '../keys/key-format.js';
import { BannedAddresses } from '../limits/banned-addresses.js';
import { addressSubject } from '../limits/client-address.js';
import { RateLimiter } from '../limits/limiter.js';
import { memoryCounters } from '../limits/memory-counters.js';
import { NO_METRICS, type ServiceMetrics } from '../metrics/service-metrics.js';
import { PUBLIC_LIMITS, type Limits, type PublicLimits } from '../limits/plans.js';
import { readFileSync } from 'node:fs';
import { loadSpec, SPEC_PATH, type OpenApiDocument } from '../../contract/load-spec.js';
import { basePathOf, listOperations, type OperationInfo } from '../../contract/operations.js';
import type { Store } from '../store/store.js';
import { contractDocuments } from './contract-documents.js';
import { handle } from './handle.js';
import { healthz, readyz } from './health.js';
import type { Handler, Handlers, OperationId } from './handler-types.js';
import { authenticate, requireKey } from './middleware/authenticate.js';
import { corsFor, preflightOnly } from './middleware/cors.js';
import { deprecationNotice, sunsetGate } from './middleware/deprecation.js';
import { errorHandler } from './middleware/error-handler.js';
import { idempotency } from './middleware/idempotency.js';
import { jsonBody } from './middleware/json-body.js';
import { localsOf } from './middleware/locals.js';
import { addressLimitHeaders, limitPublic, rateLimit, rateLimitHeaders } from './middleware/rate-limit.js';
import { requestContext } from './middleware/request-context.js';
import { methodNotAllowed, noRoute } from './middleware/route-guard.js';
import { strictParameters } from './middleware/strict-parameters.js';
import { validate } from './middleware/validate.js';
import { warnOfStubs } from './not-implemented.js';

/** Largest request body accepted, in bytes (the contract's PayloadTooLarge says 16 KiB). */
export const BODY_LIMIT_BYTES = 16 * 1024;

/** Everything the app needs, injected; createApp reads no environment and opens nothing. */
export interface AppDependencies {
  store: Store;
  limiter: RateLimiter;
  clock: Clock;
  logger: Logger;
  environment: KeyEnvironment;
  anonymousLimits: Limits;
  /** Express's `trust proxy`. @default false */
  trustProxy?: boolean | number | string;
  /** @default the handlers of src/service/http/handlers, through generated/handlers.ts */
  handlers?: Handlers;
  /** @default openapi.yaml */
  spec?: OpenApiDocument;
  /**
   * Check openapi.yaml against the OpenAPI schema at start (see validate.ts); production skips
   * it, since `npm run check` checked the contract it ships with.
   * @default true
   */
  checkSpecAtStart?: boolean;
  /** The rendered reference served at /docs. @default build/docs/index.html */
  docsPath?: string;
  /** Limits per address of the documents and health checks served without a key. @default PUBLIC_LIMITS */
  publicLimits?: PublicLimits;
  /** Origins whose pages may call the service from a browser (see middleware/cors.ts). @default none */
  corsOrigins?: readonly string[];
  /** Where requests, limit decisions, store errors and replays are counted. @default NO_METRICS */
  metrics?: ServiceMetrics;
  /** True once the service is stopping: `/readyz` answers 503 from then on. @default never */
  stopping?: () => boolean;
}

/**
 * Builds the Express app. A request goes: request id and log → CORS (a browser's preflight is
 * answered here) → the health checks and the contract's documents, each with its own limit per
 * address → for a contract operation, Express's route of it (by operationId): the operation and
 * a deprecated one's headers noted, key, rate limit, 401 without a key, sunset gate, strict
 * parameters, JSON body, express-openapi-validator, Idempotency-Key, handler → store. A method its path does not have is a 405 (after
 * the key), a path of no operation a 404 (key or not, counted), and anything thrown ends in the error handler as the Error body.
 */
export function createApp(deps: AppDependencies): Express {
  const doc = deps.spec ?? loadSpec();
  const specText = deps.spec ? null : readFileSync(SPEC_PATH, 'utf8');
  const operations = listOperations(doc);
  const basePath = basePathOf(doc);
  const handlers = deps.handlers ?? generatedHandlers;
  // Stubs written by `npm run generate` answer 501 until someone writes them: say so at start.
  const operationIds = operations.map((op) => op.operationId);
  warnOfStubs(operationIds, handlers, deps.logger);
  const metrics = deps.metrics ?? NO_METRICS;
  const publicLimits = deps.publicLimits ?? PUBLIC_LIMITS;
  // What needs no key is limited in this instance's memory and never banned: a load balancer's
  // probes must not be refused for long, nor counted once per instance through Redis.
  const publicLimiter = new RateLimiter(memoryCounters(), deps.clock, { banAfterRefusals: Number.MAX_SAFE_INTEGER, banSeconds: 1 });
  // Addresses this instance saw banned: their unknown keys are not looked up in the store.
  const bannedAddresses = new BannedAddresses(deps.clock, deps.limiter.validKeys);
  const validator = validate(doc, { checkSpec: deps.checkSpecAtStart ?? true });
  const routeOf = (op: OperationInfo) => expressRoute(basePath, op.path);
  const methodsByPath = allowedMethods(operations);

  const app = expressApp(deps.trustProxy ?? false);
  app.use(requestContext(deps.logger, metrics, deps.clock));
  // Preflights are answered before the key and the limits: a browser sends neither with them.
  app.use(corsFor(deps.corsOrigins ?? [], [...new Set(operations.map((op) => op.method.toUpperCase()))]));
  const healthLimit = limitPublic(publicLimiter, 'health', publicLimits.health);
  app.get('/healthz', healthLimit, healthz);
  app.get('/readyz', healthLimit, readyz(deps.store, deps.stopping));
  app.use(contractDocuments(doc, specText, limitPublic(publicLimiter, 'documents', publicLimits.documents), deps.docsPath));
  const checkKey = authenticate(deps.store, deps.environment, bannedAddresses);
  const limit = rateLimit(deps.limiter, deps.anonymousLimits, bannedAddresses, metrics);
  // One route per operation, routed once: which operation it is and a deprecated one's headers
  // come before anything can refuse it, so that even a 401 carries them.
  for (const op of operations) {
    app[op.method](
      routeOf(op),
      operation(op),
      ...deprecationNotice(op, basePath),
      checkKey,
      limit,
      requireKey,
      ...sunsetGate(op, basePath, deps.clock),
      strictParameters(op),
      ...jsonBody(op, BODY_LIMIT_BYTES),
      ...validator,
      ...idempotency(op, deps.store, deps.clock, metrics),
      handle(op, handlers[op.operationId as OperationId] as Handler<OperationId>, { store: deps.store, clock: deps.clock, basePath }),
    );
  }
  // A preflight the CORS step left (its origin is not allowed) can carry no key: 405 here, using
  // no allowance, with the address's rate-limit headers as on every refusal.
  const addressHeaders = addressLimitHeaders(deps.limiter, deps.anonymousLimits);
  for (const [path, allowed] of methodsByPath)
    app.options(expressRoute(basePath, path), preflightOnly, addressHeaders, methodNotAllowed(allowed));
  // Anything else counts against a limit; a contract path needs a key before its 405, a path of none is a 404, key or not.
  app.use(checkKey, limit);
  for (const [path, allowed] of methodsByPath) app.all(expressRoute(basePath, path), requireKey, methodNotAllowed(allowed));
  app.use(noRoute);
  app.use(errorHandler(metrics));
  return app;
}

/** Notes the request's operation, for the log line, the metrics and the steps after. */
function operation(op: OperationInfo): express.RequestHandler {
  return (_req, res, next) => {
    localsOf(res).operation = op;
    next();
  };
}

/**
 * The Express route of a contract path under the base path: `/pets/{petId}` → `/v1/pets/:petId`,
 * every other character literal.
 * @see https://expressjs.com/en/guide/routing.html (route paths)
 */
function expressRoute(basePath: string, path: string): string {
  return `${basePath}${path}`
    .split(/(\{[^{}]+\})/)
    .map((part, i) => (i % 2 === 1 ? `:${JSON.stringify(part.slice(1, -1))}` : part.replace(/[()[\]{}?+!:*\\]/g, '\\$&')))
    .join('');
}

/** The methods each contract path allows, for a 405's Allow: HEAD wherever GET is, in alphabetical order. */
function allowedMethods(operations: OperationInfo[]): Map<string, string[]> {
  const byPath = new Map<string, Set<string>>();
  for (const op of operations) {
    const methods = byPath.get(op.path) ?? new Set<string>();
    methods.add(op.method.toUpperCase());
    if (op.method === 'get') methods.add('HEAD');
    byPath.set(op.path, methods);
  }
  return new Map([...byPath].map(([path, methods]) => [path, [...methods].sort()]));
}

/** An Express app with the settings the service relies on, and no middleware yet. */
function expressApp(trustProxy: boolean | number | string): Express {
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.set('case sensitive routing', true);
  // `/v1/pets/` is not `/v1/pets`: the contract has no such path (express-openapi-validator reads it too).
  app.set('strict routing', true);
  app.set('trust proxy', trustProxy);
  app.set('query parser', 'simple');
  return app;
}

/**
 * The rate-limit headers of a client address without a key, read without counting: for the
 * answers Node gives to requests it refused before the app saw them (http-server.ts).
 */
export function anonymousRateLimitHeaders(deps: Pick<AppDependencies, 'limiter' | 'anonymousLimits'>) {
  return async (address: string): Promise<Record<string, string>> =>
    rateLimitHeaders(await deps.limiter.peek(addressSubject(undefined, address), deps.anonymousLimits));
}
