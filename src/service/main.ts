/** Process entry of the service: configuration, dependencies, listen, graceful shutdown. */
import './runtime-check.js';
import './legacy-url-parse.js';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { previousVersions } from '../contract/released-contracts.js';
import { invokedAs } from '../shared/command-line.js';
import { PACKAGE_ROOT } from '../shared/package-root.js';
import { systemClock } from './clock.js';
import { ConfigError } from './config/config-error.js';
import { anonymousLimitsOf, banPolicyOf, corsOriginsOf, httpTimeoutsOf, loadConfig, publicLimitsOf } from './config/load-config.js';
import { describeSettings, type Config } from './config/settings.js';
import { newKey } from './keys/issue-key.js';
import { RateLimiter } from './limits/limiter.js';
import { NO_METRICS } from './metrics/service-metrics.js';
import { openLimitCounters } from './open-limit-counters.js';
import { retryAtStart, StartupError } from './retry-at-start.js';
import { announce, type DevelopmentKey } from './banner.js';
import { stopOnSignals, type Served } from 'contract-kit';
import { startService } from './start-service.js';
import { IDEMPOTENCY_TIMING } from './store/idempotency.js';
import { describeStore, openStore } from './open-store.js';
import { serviceLog, type ServiceLog } from './service-log.js';
import { SchemaTooNewError } from './store/schema-too-new-error.js';
import type { Store } from './store/store.js';
import { feedGapWaitMs, PetFeed } from './feed/pet-feed.js';

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
  // A reader of stdout or stderr that goes away (`npm start | head -1`) must not end the service:
  // the banner's writes say whether they were taken, and the log has a stream of its own.
  process.stdout.on('error', () => {});
  process.stderr.on('error', () => {});
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
  const developmentKey = await developmentKeyFor(config, store);
  const purge = forgetExpiredIdempotencyKeys(store, logger);
  let metricsServer: Served | null = null;
  const earlierVersions = previousVersions(); // read once: served by the app, named by the banner
  const service = await startService({
    previousVersions: earlierVersions,
    store,
    feed: new PetFeed(store, { gapWaitMs: feedGapWaitMs(config.databaseQueryTimeoutMs) }), // see PetFeedOptions.gapWaitMs
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
    alsoClose: [() => clearInterval(purge), () => metricsServer?.stop(), () => redis?.disconnect(), () => logger.info('stopped')],
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
  await announce(config, logger, service.port, { key: developmentKey, keys: store }, earlierVersions);
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

/**
 * A key to try the service with, in development on an embedded store without keys, stored once
 * the banner has shown it (see announce); a scale-out deployment never prints one.
 */
async function developmentKeyFor(config: Config, store: Store): Promise<DevelopmentKey | null> {
  if (config.nodeEnv !== 'development' || store.engine !== 'sqlite' || (await store.listKeys()).length > 0) return null;
  return newKey({ name: 'development', plan: 'pro', environment: config.environment }, new Date());
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
async function serveMetrics(registry: Registry, port: number, host: string, logger: Logger): Promise<Served> {
  const { listenForMetrics } = await import('./metrics/metrics-server.js');
  const server = await listenForMetrics(registry, port, host).catch((error: NodeJS.ErrnoException) => {
    throw new StartupError(`cannot serve metrics on ${host}:${port} (METRICS_HOST, METRICS_PORT): ${error.code ?? error.message}`);
  });
  logger.info({ metricsPort: port, metricsHost: host }, 'metrics at /metrics');
  return server;
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
