import express, { type Express, type Request, type RequestHandler } from 'express';
import { contractCors, contractDocuments, contractServer, isPreflight, unmatchedOf, type ContractServer } from 'contract-kit';
import type { Logger } from 'pino';
import { readFileSync } from 'node:fs';
import { handlers as generatedHandlers } from '../../../generated/handlers.js';
import { BODY_LIMITS } from '../../contract/body-limits.js';
import { loadSpec, SPEC_PATH, type OpenApiDocument } from '../../contract/load-spec.js';
import { buildDocs, canBuildDocs, DOCS_PATH } from '../../contract/reference-docs.js';
import { previousVersions, type PreviousVersion } from '../../contract/released-contracts.js';
import type { Clock } from '../clock.js';
import type { KeyEnvironment } from '../keys/key-format.js';
import { BannedAddresses } from '../limits/banned-addresses.js';
import { RateLimiter } from '../limits/limiter.js';
import { memoryCounters } from '../limits/memory-counters.js';
import { NO_METRICS, type ServiceMetrics } from '../metrics/service-metrics.js';
import { PUBLIC_LIMITS, type Limits, type PublicLimits } from '../limits/plans.js';
import type { Store } from '../store/store.js';
import { afterTheAnswer, errorBody, problemOf, reportError } from './error-body.js';
import { PetFeed } from '../feed/pet-feed.js';
import { handlerContext } from './handler-context.js';
import { healthz, readyz } from './health.js';
import type { Handlers } from './handler-types.js';
import { apiKeyVerifier, authenticateUnmatched, noteCaller, REALM, requireKey } from './middleware/authenticate.js';
import { idempotency, recordAnswer } from './middleware/idempotency.js';
import { addressLimitHeaders, limitPublic, rateLimit } from './middleware/rate-limit.js';
import { refuseBadHost } from './middleware/host-header.js';
import { requestContext } from './middleware/request-context.js';
import { canonicalPetNames } from './pet-name.js';

/** Largest request body accepted, in bytes (the contract's PayloadTooLarge says 16 KiB). */
export const BODY_LIMIT_BYTES = BODY_LIMITS.limitBytes;

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
   * The released contracts of earlier major versions, each served under its own servers' path
   * beside `spec`, by the same handlers (by operationId) on the same store.
   * @default with the default spec, contracts/released's below openapi.yaml's major; else none
   */
  previousVersions?: readonly PreviousVersion[];
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
  /** The animals added, as GET /pets/feed's followers read them. @default a PetFeed of `store` with its defaults */
  feed?: PetFeed;
}

/** The dependencies, with what createApp makes of those not given. */
type WiredDependencies = AppDependencies & { feed: PetFeed };

/** The service's Express app, and when it is ready to be sent requests. */
export interface App {
  app: Express;
  /** Resolves once every operation's validator is compiled (logged, with how long it took): what /readyz waits for. */
  ready: Promise<void>;
  /** The steps of an operation of the current contract, in the order they run (contract-kit's ContractServer.stepsOf). */
  stepsOf: ContractServer['stepsOf'];
  /** The contract's Error body for a problem no operation took (contract-kit's ContractServer.answerOf). */
  answerOf: ContractServer['answerOf'];
  /** The CORS headers of an answer made outside Express, for a request's Origin. */
  corsHeaders: (origin?: string) => Record<string, string>;
  /** Ends every open stream (GET /pets/feed's, of each version), as the service stops (contract-kit's endStreams). */
  endStreams: () => void;
}

/**
 * Builds the Express app: its steps, and each operation's through contract-kit's router, in the
 * order docs/architecture.md's "Where a request goes" lists them (a test holds the two together).
 */
export function createApp(deps: AppDependencies): App {
  const doc = deps.spec ?? loadSpec();
  const specText = deps.spec ? null : readFileSync(SPEC_PATH, 'utf8');
  const handlers = deps.handlers ?? generatedHandlers;
  const metrics = deps.metrics ?? NO_METRICS;
  const publicLimits = deps.publicLimits ?? PUBLIC_LIMITS;
  // What needs no key is limited in this instance's memory and never banned: a load balancer's
  // probes must not be refused for long, nor counted once per instance through Redis.
  const publicLimiter = new RateLimiter(memoryCounters(), deps.clock, { banAfterRefusals: Number.MAX_SAFE_INTEGER, banSeconds: 1 });
  // Addresses this instance saw banned: their unknown keys are not looked up in the store.
  const bannedAddresses = new BannedAddresses(deps.clock, deps.limiter.validKeys);
  const wired = { ...deps, feed: deps.feed ?? new PetFeed(deps.store) };
  const kit = serveContract(wired, doc, 'openapi.yaml', handlers, bannedAddresses);
  const previous = (deps.previousVersions ?? (deps.spec ? [] : previousVersions(SPEC_PATH, doc))).map((version) =>
    servePreviousVersion(wired, version, kit, handlers, bannedAddresses),
  );
  const kits = [kit, ...previous];
  let validatorsReady = false;
  const ready = Promise.all(kits.map((k) => k.ready)).then((all) => {
    validatorsReady = true;
    // A service that stops meanwhile has closed its log.
    if (deps.stopping?.()) return;
    const operations = all.reduce((sum, r) => sum + r.operations, 0);
    deps.logger.info({ operations, ms: Math.round(Math.max(...all.map((r) => r.milliseconds))) }, 'validators ready');
  });
  const app = expressApp(deps.trustProxy ?? false);
  app.use(requestContext(deps.logger, metrics, deps.clock));
  // Preflights are answered before the key and the limits: a browser sends neither with them. The
  // methods and headers are the contracts'; a client may send its own X-Request-Id.
  const cors = contractCors({ origins: deps.corsOrigins ?? [], contracts: kits, allowHeaders: ['X-Request-Id'] });
  app.use(cors.middleware);
  app.use(refuseBadHost(addressLimitHeaders(deps.limiter, deps.anonymousLimits)));
  const healthLimit = limitPublic(publicLimiter, 'health', publicLimits.health);
  app.get('/healthz', healthLimit, healthz);
  app.get(
    '/readyz',
    healthLimit,
    readyz(deps.store, deps.stopping, () => validatorsReady),
  );
  const docsPage = deps.docsPath ?? DOCS_PATH;
  app.use(
    contractDocuments({
      contract: doc,
      text: specText ?? undefined,
      docsPage,
      // A page missing, or older than the contract, is rendered again where Redocly is installed.
      rebuild: canBuildDocs() ? { contractPath: SPEC_PATH, build: () => buildDocs(docsPage) } : undefined,
      buildHint: 'run npm run docs',
      before: [limitPublic(publicLimiter, 'documents', publicLimits.documents)],
    }),
  );
  app.use(kit.router);
  // Each earlier major version under its own base path, beside openapi.yaml's.
  for (const version of previous) app.use(version.router);
  app.use(kit.notFound);
  app.use(kit.errorHandler);
  app.use(afterTheAnswer);
  const endStreams = () => kits.forEach((k) => k.endStreams());
  return { app, ready, stepsOf: kit.stepsOf, answerOf: kit.answerOf, corsHeaders: cors.headersFor, endStreams };
}

/**
 * contract-kit serving the contract with the Animal Store's handlers, its bearer keys, its Error
 * body and its steps, which the kit runs among its own (ContractServer.stepsOf lists them):
 * deprecation headers first (so that even a 401 carries them), the key, the rate limit (which
 * counts a request with no valid key against its address) before the 401, the sunset gate,
 * strict parameters, the body, the validator, the pet name's canonical form, the
 * Idempotency-Key, the handler.
 */
function serveContract(deps: WiredDependencies, doc: OpenApiDocument, label: string, handlers: Handlers, bannedAddresses: BannedAddresses) {
  const metrics = deps.metrics ?? NO_METRICS;
  const limit = rateLimit(deps.limiter, deps.anonymousLimits, bannedAddresses, metrics);
  const [bearer] = Object.keys(doc.components?.securitySchemes ?? {});
  return contractServer({
    contract: doc,
    label,
    handlers,
    security: bearer ? { [bearer]: apiKeyVerifier(deps.store, deps.environment, bannedAddresses) } : {},
    errors: errorBody,
    realm: REALM,
    bodyLimitBytes: BODY_LIMIT_BYTES,
    maxProperties: BODY_LIMITS.maxProperties,
    maxDepth: BODY_LIMITS.maxDepth,
    // Every body the service takes is small enough for its 400 to name each wrong value.
    allErrorsUpToBytes: BODY_LIMIT_BYTES,
    // The kit runs them among its own: these after it finds the key, before its 401; these once the request is valid.
    steps: {
      afterAuthentication: () => ({ noteCaller, rateLimit: limit }),
      beforeHandler: (op) => ({
        canonicalPetNames: canonicalPetNames(doc, op),
        idempotency: idempotency(op, deps.store, deps.clock, metrics),
      }),
    },
    unmatched: unmatchedSteps(deps, bannedAddresses, limit),
    context: handlerContext({ store: deps.store, feed: deps.feed, clock: deps.clock }),
    beforeSend: recordAnswer(deps.store),
    problemOf,
    onError: reportError(metrics),
    // The warm-up's warnings come after start, maybe once the service has stopped and closed its log.
    onWarning: (message) => void (deps.stopping?.() || deps.logger.warn(label === 'openapi.yaml' ? message : `${label}: ${message}`)),
    now: () => deps.clock.now(),
  });
}

/**
 * A previous major version, served by the current handlers under its own servers' path. Its
 * operations are matched to handlers by operationId; one the current contract no longer has
 * answers 501, and the kit's warning at start names it. Every answer is checked against the
 * previous contract.
 * @throws Error when it would be served under a path the current contract takes
 */
function servePreviousVersion(
  deps: WiredDependencies,
  version: PreviousVersion,
  current: ReturnType<typeof serveContract>,
  handlers: Handlers,
  bannedAddresses: BannedAddresses,
) {
  const served = serveContract(deps, version.doc, version.label, handlers, bannedAddresses);
  const shared = served.basePaths.filter((path) => current.basePaths.includes(path));
  if (shared.length > 0)
    throw new Error(
      `${version.label} (the released ${version.major}.x) and openapi.yaml would both be served under ${shared[0] || '/'}: ` +
        `give openapi.yaml's servers a path of its new major version (such as /v${version.major + 1})`,
    );
  return served;
}

/**
 * Before the kit's 404 or 405: a preflight the CORS step left (its origin is not allowed) can
 * carry no key, so it uses no allowance and only gets the address's rate-limit headers; anything
 * else counts against a limit, and a contract path needs a key before its 405 (a path of none is
 * a 404, key or not).
 */
function unmatchedSteps(deps: AppDependencies, banned: BannedAddresses, limit: RequestHandler): RequestHandler[] {
  const addressHeaders = addressLimitHeaders(deps.limiter, deps.anonymousLimits);
  const key = authenticateUnmatched(deps.store, deps.environment, banned);
  const refusedPreflight = (req: Request) => isPreflight(req) && unmatchedOf(req)?.refusal === 'method_not_allowed';
  return [
    (req, res, next) => (refusedPreflight(req) ? next() : key(req, res, next)),
    (req, res, next) => (refusedPreflight(req) ? addressHeaders(req, res, next) : limit(req, res, next)),
    (req, res, next) =>
      unmatchedOf(req)?.refusal === 'method_not_allowed' && !refusedPreflight(req) ? requireKey(req, res, next) : next(),
  ];
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
