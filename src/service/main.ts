/** Process entry of the service: configuration, dependencies, listen, graceful shutdown. */
import './runtime-check.js';
import './legacy-url-parse.js';
import type { Server } from 'node:http';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { basePathsOf } from 'contract-kit';
import { loadSpec, resolveRef, type OpenApiDocument } from '../contract/load-spec.js';
import { previousVersions, type PreviousVersion } from '../contract/released-contracts.js';
import { listOperations } from '../contract/operations.js';
import { invokedAs } from '../shared/command-line.js';
import { PACKAGE_ROOT } from '../shared/package-root.js';
import { systemClock } from './clock.js';
import { ConfigError } from './config/config-error.js';
import { anonymousLimitsOf, banPolicyOf, corsOriginsOf, httpTimeoutsOf, loadConfig, publicLimitsOf } from './config/load-config.js';
import { describeSettings, type Config } from './config/settings.js';
import { issueKey } from './keys/issue-key.js';
import { keyPrefix } from './keys/key-format.js';
import { RateLimiter } from './limits/limiter.js';
import { NO_METRICS } from './metrics/service-metrics.js';
import { openLimitCounters } from './open-limit-counters.js';
import { retryAtStart, StartupError } from './retry-at-start.js';
import { startService, stopOnSignals } from './start-service.js';
import { IDEMPOTENCY_TIMING } from './store/idempotency.js';
import { describeStore, openStore } from './open-store.js';
import { serviceLog, type ServiceLog } from './service-log.js';
import { SchemaTooNewError } from './store/schema-too-new-error.js';
import type { Store } from './store/store.js';

const HELP = `Usage: npm start          (from the TypeScript sources, for development)
       npm run serve      (compiled by npm run build: starts faster)
       node server.js     (in the folder npm run release makes, for production)

Serves the Animal Store API: openapi.yaml under its servers' path (/v1), and beside it the
released contract of each earlier major version (contracts/released/<major>.x.yaml, under its
own path), all on one store: the embedded SQLite store by default, on PostgreSQL with DATABASE_URL, with limits shared through Redis with REDIS_URL.
Configuration comes from the environment:

${describeSettings().replaceAll(`${PACKAGE_ROOT}/`, '')}
`;

/** How often records of Idempotency-Key older than their retention are forgotten. */
const IDEMPOTENCY_PURGE_INTERVAL_MS = 60 * 60 * 1000;

async function main(): Promise<void> {
  if (process.argv.includes('--help') || process.argv.includes('-h')) {
    process.stdout.write(HELP);
    return;
  }
  const config = loadConfig();
  log = serviceLog(config.logLevel);
  const { logger } = log;
  const stopWhileStarting = exitOnSignals(log);
  // Metrics only when asked for (METRICS_PORT): prom-client is loaded then, not otherwise.
  const prometheus = config.metricsPort === null ? null : (await import('./metrics/prometheus.js')).prometheusMetrics();
  const metrics = prometheus?.metrics ?? NO_METRICS;
  const store = await openStoreAtStart(config, logger);
  const { counters, redis } = await openLimitCounters(config, logger, metrics).catch(async (error: unknown) => {
    await store.close();
    throw error;
  });
  const developmentKey = await issueDevelopmentKey(config, store);
  const purge = forgetExpiredIdempotencyKeys(store, logger);
  let metricsServer: Server | null = null;
  // Read once: served by the app, named by the banner.
  const earlierVersions = previousVersions();
  const service = await startService({
    previousVersions: earlierVersions,
    store,
    limiter: new RateLimiter(counters, systemClock, banPolicyOf(config)),
    clock: systemClock,
    logger,
    environment: config.environment,
    anonymousLimits: anonymousLimitsOf(config),
    publicLimits: publicLimitsOf(config),
    trustProxy: config.trustProxy,
    corsOrigins: corsOriginsOf(config),
    metrics,
    port: config.port,
    host: config.host,
    timeouts: httpTimeoutsOf(config),
    connections: { maxConnections: config.maxConnections, maxConnectionsPerAddress: config.maxConnectionsPerAddress },
    shutdownTimeoutMs: config.shutdownTimeoutMs,
    shutdownLingerMs: config.shutdownLingerMs,
    alsoClose: [() => clearInterval(purge), () => metricsServer?.close(), () => redis?.disconnect(), () => logger.info('stopped')],
  });
  if (prometheus && config.metricsPort !== null)
    metricsServer = await serveMetrics(prometheus.registry, config.metricsPort, config.metricsHost, logger);
  // The graceful stop's handlers first: a signal between the two would otherwise meet none.
  stopOnSignals(service, {
    onSignal: (signal, again) =>
      again
        ? logger.warn({ signal }, 'stopping now: closing the connections of in-flight requests')
        : logger.info({ signal }, 'shutting down: answering the requests already sent, then no new connections'),
    exit: log.exit,
  });
  process.off('SIGTERM', stopWhileStarting);
  process.off('SIGINT', stopWhileStarting);
  announce(config, logger, service.port, developmentKey, earlierVersions);
}

/**
 * Until the service listens, a stop request (docker stop during the wait for PostgreSQL) ends
 * the process at once: there is nothing to finish. Node as PID 1 would otherwise ignore it.
 * Returns the listener, to be removed once the service stops gracefully instead.
 */
function exitOnSignals({ logger, exit }: ServiceLog): (signal: NodeJS.Signals) => void {
  const stop = (signal: NodeJS.Signals) => {
    logger.info({ signal }, 'stopped before it started');
    exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  return stop;
}

/** The configured store; PostgreSQL may still be starting (containers start together): waited for, up to STARTUP_TIMEOUT_MS. */
function openStoreAtStart(config: Config, logger: Logger): Promise<Store> {
  const where = describeStore(config);
  return retryAtStart(
    where,
    () =>
      openStore(config, (error) => logger.warn({ err: error }, 'an idle PostgreSQL connection failed')).catch((error: unknown) => {
        if (error instanceof SchemaTooNewError) throw new StartupError(`${where}: ${error.message}`);
        throw error;
      }),
    config.databaseUrl ? config.startupTimeoutMs : 0,
    (reason, waitMs) => logger.warn({ reason, retryInMs: waitMs }, `${where} does not answer yet; trying again`),
  );
}

/** A key to try the service with, in development on an embedded store without keys; a scale-out deployment never prints one. */
async function issueDevelopmentKey(config: Config, store: Store): Promise<string | null> {
  if (config.nodeEnv !== 'development' || store.engine !== 'sqlite' || (await store.listKeys()).length > 0) return null;
  const issued = await issueKey(store, { name: 'development', plan: 'pro', environment: config.environment }, new Date());
  return issued.key;
}

/** Forgets Idempotency-Key records past their retention, every hour, for as long as the process runs. */
function forgetExpiredIdempotencyKeys(store: Store, logger: Logger): NodeJS.Timeout {
  const purge = setInterval(() => {
    store
      .purgeIdempotencyKeys(new Date(Date.now() - IDEMPOTENCY_TIMING.retentionMs))
      .then((n) => n > 0 && logger.info({ purged: n }, 'forgot expired Idempotency-Key records'))
      .catch((error: unknown) => logger.warn({ err: error }, 'could not purge Idempotency-Key records'));
  }, IDEMPOTENCY_PURGE_INTERVAL_MS);
  purge.unref();
  return purge;
}

/** The metrics server on METRICS_HOST:METRICS_PORT. */
async function serveMetrics(registry: Registry, port: number, host: string, logger: Logger): Promise<Server> {
  const { listenForMetrics } = await import('./metrics/metrics-server.js');
  const server = await listenForMetrics(registry, port, host).catch((error: NodeJS.ErrnoException) => {
    throw new StartupError(`cannot serve metrics on ${host}:${port} (METRICS_HOST, METRICS_PORT): ${error.code ?? error.message}`);
  });
  logger.info({ metricsPort: port, metricsHost: host }, 'metrics at /metrics');
  return server;
}

/** Says where the service listens: one log line; for people (not production) a banner, and the development key once. */
function announce(config: Config, logger: Logger, port: number, developmentKey: string | null, earlierVersions: PreviousVersion[]): void {
  const where = describeStore(config);
  const limits = config.redisUrl ? `limits in Redis (${config.redisKeyPrefix})` : 'limits in memory';
  logger.info({ port, store: where, limits, environment: config.environment }, 'listening');
  // Production writes JSON lines only (the line above says it all); people get a banner.
  if (config.nodeEnv === 'production') return;
  const doc = loadSpec();
  // Where the contracts' servers put their operations (/v1), as the app serves them.
  const baseOf = (contract: OpenApiDocument) => `http://localhost:${port}${basePathsOf(contract)[0] ?? ''}`;
  const base = baseOf(doc);
  // The keys' environment is not the process's mode: `npm start` is development serving production keys.
  const server = doc.servers?.find((s) => s.description?.toLowerCase() === config.environment);
  process.stdout.write(
    `${doc.info.title} ${doc.info.version} at ${base} (NODE_ENV=${config.nodeEnv})\n` +
      earlierVersions
        .map(({ label, doc: old }) => {
          const sunset = typeof old.info['x-sunset'] === 'string' ? `, until ${old.info['x-sunset']}` : '';
          return `  and ${old.info.version} at ${baseOf(old)} (${label}${sunset})\n`;
        })
        .join('') +
      `  takes ${config.environment} keys only (${keyPrefix(config.environment)}…, ANIMAL_STORE_ENV)${server ? `: the keys of ${server.url}` : ''}\n` +
      `  ${where}, ${limits}\n`,
  );
  if (!developmentKey) return;
  const auth = `-H 'Authorization: Bearer ${developmentKey}'`;
  process.stdout.write(
    `\nCreated a development key (Pro plan). It is shown once; keep it:\n  ${developmentKey}\n\n` +
      tryLines(doc, auth, base) +
      `More keys: ${invokedAs('npm run keys --').replace('server.js', 'keys.js')} create --plan free --name NAME\n\n`,
  );
}

/**
 * Requests to try the service with, from the contract: its first GET without path parameters,
 * and its first POST without them whose JSON body has an example, sent with that example.
 */
function tryLines(doc: ReturnType<typeof loadSpec>, auth: string, base: string): string {
  const operations = listOperations(doc).filter((op) => !op.path.includes('{'));
  const get = operations.find((op) => op.method === 'get');
  const post = operations.find((op) => op.method === 'post');
  type Body = { content?: Record<string, { examples?: Record<string, unknown> }> } | undefined;
  const body = resolveRef<Body>(doc, post && (doc.paths[post.path]!.post as { requestBody?: unknown }).requestBody);
  const [example] = Object.values(body?.content?.['application/json']?.examples ?? {}).map((e) => resolveRef<{ value?: unknown }>(doc, e));
  const lines = [
    ...(get ? [`  curl ${auth} ${base}${get.path}`] : []),
    ...(post && example?.value !== undefined
      ? [`  curl ${auth} -H 'Content-Type: application/json' -d '${JSON.stringify(example.value)}' ${base}${post.path}`]
      : []),
  ];
  return lines.length === 0 ? '' : `Try:\n${lines.join('\n')}\n`;
}

/** The log, once the configuration is read; the process ends through it, so that its end cannot hang on stdout. */
let log: ServiceLog | null = null;

main().catch((error: unknown) => {
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n\nRun ${invokedAs('npm start --')} --help for the settings.\n`);
  } else if (error instanceof StartupError) {
    process.stderr.write(`The service failed to start: ${error.message}\n`);
  } else if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
    process.stderr.write(`Cannot listen: ${(error as Error).message}. Set PORT to a free port.\n`);
  } else {
    process.stderr.write(`The service failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  }
  if (log) log.exit(1);
  else process.exit(1);
});
