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
import { basePathOf, listOperations } from '../../contract/operations.js';
import type { Store } from '../store/store.js';
import { contractDocuments } from './contract-documents.js';
import { healthz, readyz } from './health.js';
import type { Handlers } from './handler-types.js';
import { authenticate, requireKey } from './middleware/authenticate.js';
import { corsFor } from './middleware/cors.js';
import { deprecation } from './middleware/deprecation.js';
import { errorHandler } from './middleware/error-handler.js';
import { idempotency } from './middleware/idempotency.js';
import { jsonBody } from './middleware/json-body.js';
import { limitPublic, rateLimit, rateLimitHeaders } from './middleware/rate-limit.js';
import { requestContext } from './middleware/request-context.js';
import { strictParameters } from './middleware/strict-parameters.js';
import { matchOperation } from './middleware/match-operation.js';
import { noRoute, routeGuard } from './middleware/route-guard.js';
import { validate } from './middleware/validate.js';
import { mountOperations } from './mount-operations.js';
import { warnOfStubs } from './not-implemented.js';
import { pipeline } from './pipeline.js';
import { PathMatcher } from './routing.js';

/** Largest request body accepted, in bytes (the contract's PayloadTooLarge says 16 KiB). */
const BODY_LIMIT_BYTES = 16 * 1024;

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
}

/**
 * Builds the Express app. A request goes: request id and log → CORS (a browser's preflight is
 * answered here) → the health checks and the contract's documents, each with its own limit per
 * address → the contract's operation for its method and path, found once → deprecation headers
 * → key → rate limit → 401 without a key → 404/405 for what the contract does not have → sunset
 * gate → body (required, strict JSON, size limit) → strict parameters (no repeated query
 * parameter, integers in plain digits) → contract validation → Idempotency-Key → handler (by
 * operationId) → store. What nothing answered is a 404, and anything thrown ends in the error
 * handler as the Error body.
 */
export function createApp(deps: AppDependencies): Express {
  const doc = deps.spec ?? loadSpec();
  const specText = deps.spec ? null : readFileSync(SPEC_PATH, 'utf8');
  const operations = listOperations(doc);
  const basePath = basePathOf(doc);
  const paths = new PathMatcher(operations, basePath);
  const handlers = deps.handlers ?? generatedHandlers;
  // Stubs written by `npm run generate` answer 501 until someone writes them: say so at start.
  warnOfStubs(
    operations.map((op) => op.operationId),
    handlers,
    deps.logger,
  );
  const metrics = deps.metrics ?? NO_METRICS;
  const publicLimits = deps.publicLimits ?? PUBLIC_LIMITS;
  // What needs no key is limited in this instance's memory and never banned: a load balancer's
  // probes must not be refused for long, nor counted once per instance through Redis.
  const publicLimiter = new RateLimiter(memoryCounters(), deps.clock, { banAfterRefusals: Number.MAX_SAFE_INTEGER, banSeconds: 1 });
  const { headers: deprecationHeaders, gate: sunsetGate } = deprecation(operations, basePath, deps.clock);
  // Addresses this instance saw banned: their unknown keys are not looked up in the store.
  const bannedAddresses = new BannedAddresses(deps.clock);

  const app = expressApp(deps.trustProxy ?? false);
  app.use(requestContext(deps.logger, metrics));
  // Preflights are answered before the key and the limits: a browser sends neither with them.
  app.use(corsFor(deps.corsOrigins ?? [], [...new Set(operations.map((op) => op.method.toUpperCase()))]));
  const healthLimit = limitPublic(publicLimiter, 'health', publicLimits.health);
  app.get('/healthz', healthLimit, healthz);
  app.get('/readyz', healthLimit, readyz(deps.store));
  app.use(contractDocuments(doc, specText, limitPublic(publicLimiter, 'documents', publicLimits.documents), deps.docsPath));
  // The contract's operations: one Express middleware running each step in turn (pipeline.ts).
  app.use(
    pipeline([
      matchOperation(paths),
      deprecationHeaders,
      authenticate(deps.store, deps.environment, bannedAddresses),
      rateLimit(deps.limiter, deps.anonymousLimits, bannedAddresses, metrics),
      requireKey,
      routeGuard,
      sunsetGate,
      jsonBody(doc, operations, BODY_LIMIT_BYTES),
      strictParameters(doc, operations),
      validate(doc, operations, { checkSpec: deps.checkSpecAtStart ?? true }),
      idempotency(operations, deps.store, deps.clock, metrics),
      mountOperations(operations, handlers, { store: deps.store, clock: deps.clock, basePath }),
    ]),
  );
  app.use(noRoute);
  app.use(errorHandler(paths, BODY_LIMIT_BYTES, metrics));
  return app;
}

/** An Express app with the settings the service relies on, and no middleware yet. */
function expressApp(trustProxy: boolean | number | string): Express {
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.set('case sensitive routing', true);
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
