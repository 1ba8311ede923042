/** Process entry of the service: configuration, dependencies, listen, graceful shutdown. */
import './runtime-check.js';
import { pino } from 'pino';
import { systemClock } from './clock.js';
import { ConfigError } from './config/config-error.js';
import { anonymousLimitsOf, banPolicyOf, corsOriginsOf, httpTimeoutsOf, loadConfig, publicLimitsOf } from './config/load-config.js';
import { describeSettings } from './config/settings.js';
import { issueKey } from './keys/issue-key.js';
import { memoryCounters, RateLimiter, type LimitCounters } from './limits/limiter.js';
import { NO_METRICS } from './metrics/service-metrics.js';
import { retryAtStart, StartupError } from './retry-at-start.js';
import { invokedAs } from '../shared/command-line.js';
import { PACKAGE_ROOT } from '../shared/package-root.js';
import { IDEMPOTENCY_TIMING } from './store/idempotency.js';
import { startService, stopOnSignals } from './start-service.js';
import { describeStore, openStore } from './store/open-store.js';

const HELP = `Usage: npm start          (from the TypeScript sources, for development)
       npm run serve      (compiled by npm run build: starts faster)
       node server.js     (in the folder npm run release makes, for production)

Serves the Animal Store API (openapi.yaml) under /v1: on the embedded SQLite store by
default, on PostgreSQL with DATABASE_URL, with limits shared through Redis with REDIS_URL.
Configuration comes from the environment:

${describeSettings().replaceAll(`${PACKAGE_ROOT}/`, '')}
`;

async function main(): Promise<void> {
  if (process.argv.includes('--help') || process.argv.includes('-h')) {
    process.stdout.write(HELP);
    return;
  }
  const config = loadConfig();
  const logger = pino({ level: config.logLevel });
  // Until the service listens, a stop request (docker stop during the wait for PostgreSQL) ends
  // the process at once: there is nothing to finish. Node as PID 1 would otherwise ignore it.
  const stopWhileStarting = (signal: NodeJS.Signals) => {
    logger.info({ signal }, 'stopped before it started');
    process.exit(0);
  };
  process.on('SIGTERM', stopWhileStarting);
  process.on('SIGINT', stopWhileStarting);
  const where = describeStore(config);
  // Metrics only when asked for (METRICS_PORT): prom-client is loaded then, not otherwise.
  const prometheus = config.metricsPort === null ? null : (await import('./metrics/prometheus.js')).prometheusMetrics();
  const metrics = prometheus?.metrics ?? NO_METRICS;
  // PostgreSQL may still be starting (containers start together): waited for, up to STARTUP_TIMEOUT_MS.
  const store = await retryAtStart(
    where,
    () => openStore(config, (error) => logger.warn({ err: error }, 'an idle PostgreSQL connection failed')),
    config.databaseUrl ? config.startupTimeoutMs : 0,
    (reason, waitMs) => logger.warn({ reason, retryInMs: waitMs }, `${where} does not answer yet; trying again`),
  );
  let counters: LimitCounters = memoryCounters(config.limiterMaxEntries);
  let redis: import('ioredis').Redis | null = null;
  if (config.redisUrl) {
    // Loaded only with REDIS_URL, so a single instance starts without ioredis.
    const { connectRedis, redisCounters } = await import('./limits/redis-counters.js');
    redis = connectRedis({
      url: config.redisUrl,
      commandTimeoutMs: config.redisTimeoutMs,
      onStateChange: (state, error) =>
        state === 'ready'
          ? logger.info('Redis is back: limits and bans are shared again')
          : logger.warn({ err: error }, 'Redis is unavailable: this instance counts limits in its own memory until it is back'),
    });
    const client = redis;
    try {
      await retryAtStart(
        `Redis at ${new URL(config.redisUrl).host}`,
        () => (client.status === 'ready' ? client.ping().then(() => undefined) : untilReady(client, 1_000)),
        config.startupTimeoutMs,
        (reason, waitMs) => logger.warn({ reason, retryInMs: waitMs }, 'Redis does not answer yet; trying again'),
      );
    } catch (error) {
      client.disconnect();
      await store.close();
      throw error;
    }
    let lastFallbackLog = 0;
    counters = redisCounters(redis, config.redisKeyPrefix, () => {
      metrics.redisFallback();
      // A slow Redis fails commands without an error event; say so, at most every 10 s.
      if (Date.now() - lastFallbackLog > 10_000) {
        lastFallbackLog = Date.now();
        logger.warn('a Redis command failed or timed out: counting this request in memory');
      }
    });
  }
  const limiter = new RateLimiter(counters, systemClock, banPolicyOf(config));

  let developmentKey: string | null = null;
  // Only for the embedded store: a scale-out deployment never prints a key by itself.
  if (config.nodeEnv === 'development' && store.engine === 'sqlite' && (await store.listKeys()).length === 0) {
    const issued = await issueKey(store, { name: 'development', plan: 'pro', environment: config.environment }, new Date());
    developmentKey = issued.key;
  }

  let purge: NodeJS.Timeout | undefined;
  let metricsServer: import('node:http').Server | null = null;
  const service = await startService({
    store,
    limiter,
    clock: systemClock,
    logger,
    environment: config.environment,
    anonymousLimits: anonymousLimitsOf(config),
    publicLimits: publicLimitsOf(config),
    trustProxy: config.trustProxy,
    corsOrigins: corsOriginsOf(config),
    metrics,
    checkSpecAtStart: config.nodeEnv !== 'production',
    port: config.port,
    host: config.host,
    timeouts: httpTimeoutsOf(config),
    shutdownTimeoutMs: config.shutdownTimeoutMs,
    alsoClose: [() => clearInterval(purge), () => metricsServer?.close(), () => redis?.disconnect(), () => logger.info('stopped')],
  });
  const { port } = service;
  if (prometheus) {
    const { createMetricsServer } = await import('./metrics/metrics-server.js');
    const listening = createMetricsServer(prometheus.registry);
    metricsServer = listening;
    await new Promise<void>((resolve, reject) => {
      listening.once('error', (error: NodeJS.ErrnoException) =>
        reject(
          new StartupError(
            `cannot serve metrics on ${config.metricsHost}:${config.metricsPort} (METRICS_HOST, METRICS_PORT): ${error.code ?? error.message}`,
          ),
        ),
      );
      listening.listen(config.metricsPort!, config.metricsHost, () => resolve());
    });
    logger.info({ metricsPort: config.metricsPort, metricsHost: config.metricsHost }, 'metrics at /metrics');
  }
  const base = `http://localhost:${port}/v1`;
  const limits = config.redisUrl ? `limits in Redis (${config.redisKeyPrefix})` : 'limits in memory';
  logger.info({ port, store: where, limits, environment: config.environment }, 'listening');
  // Production writes JSON lines only (the line above says it all); people get a banner.
  if (config.nodeEnv !== 'production') process.stdout.write(`Animal Store API (${config.environment}) at ${base}, ${where}, ${limits}\n`);

  // Idempotency-Key records are kept 24 hours, then forgotten.
  purge = setInterval(
    () => {
      store
        .purgeIdempotencyKeys(new Date(Date.now() - IDEMPOTENCY_TIMING.retentionMs))
        .then((n) => n > 0 && logger.info({ purged: n }, 'forgot expired Idempotency-Key records'))
        .catch((error: unknown) => logger.warn({ err: error }, 'could not purge Idempotency-Key records'));
    },
    60 * 60 * 1000,
  );
  purge.unref();
  if (developmentKey) {
    process.stdout.write(
      `\nCreated a development key (Pro plan). It is shown once; keep it:\n  ${developmentKey}\n\n` +
        `Try:\n  curl -H 'Authorization: Bearer ${developmentKey}' ${base}/pets\n` +
        `  curl -H 'Authorization: Bearer ${developmentKey}' -H 'Content-Type: application/json' -d '{"name":"Rex","categoryId":3}' ${base}/pets\n` +
        `More keys: ${invokedAs('npm run keys --').replace('server.js', 'keys.js')} create --plan free --name NAME\n\n`,
    );
  }

  process.off('SIGTERM', stopWhileStarting);
  process.off('SIGINT', stopWhileStarting);
  stopOnSignals(service, (signal, again) =>
    again
      ? logger.warn({ signal }, 'stopping now: closing the connections of in-flight requests')
      : logger.info({ signal }, 'shutting down: no new connections, finishing in-flight requests'),
  );
}

/** Resolves when the Redis client becomes ready within `ms`; rejects with its connection error, or its state. */
function untilReady(client: import('ioredis').Redis, ms: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const done = (error?: Error) => {
      clearTimeout(timer);
      client.off('ready', onReady);
      client.off('error', onError);
      if (error) reject(error);
      else resolve();
    };
    const onReady = () => done();
    const onError = (error: Error) => done(error);
    const timer = setTimeout(() => done(new Error(`Redis connection is ${client.status}`)), ms);
    client.once('ready', onReady);
    client.once('error', onError);
  });
}

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
  process.exit(1);
});
