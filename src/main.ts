/** Process entry of the service: configuration, dependencies, listen, graceful shutdown. */
import { pino } from 'pino';
import { systemClock } from './clock.js';
import { ConfigError, describeSettings, loadConfig, PACKAGE_ROOT } from './config.js';
import { issueKey } from './keys/issue-key.js';
import { memoryCounters, RateLimiter } from './limits/limiter.js';
import { createApp } from './server/app.js';
import { createHttpServer } from './server/http-server.js';
import { SqliteStore } from './store/sqlite/sqlite-store.js';

const HELP = `Usage: npm start

Serves the Animal Store API (openapi.yaml) under /v1 on the embedded SQLite store.
Configuration comes from the environment:

${describeSettings().replaceAll(PACKAGE_ROOT, '')}
`;

async function main(): Promise<void> {
  if (process.argv.includes('--help') || process.argv.includes('-h')) {
    process.stdout.write(HELP);
    return;
  }
  const config = loadConfig();
  const logger = pino({ level: config.logLevel });
  const store = SqliteStore.open(config.databasePath);
  const limiter = new RateLimiter(memoryCounters(), systemClock, {
    banAfterRefusals: config.banAfterRefusals,
    banSeconds: config.banSeconds,
  });

  let developmentKey: string | null = null;
  if (config.nodeEnv === 'development' && (await store.listKeys()).length === 0) {
    const issued = await issueKey(store, { name: 'development', plan: 'pro', environment: config.environment }, new Date());
    developmentKey = issued.key;
  }

  const app = createApp({
    store,
    limiter,
    clock: systemClock,
    logger,
    environment: config.environment,
    anonymousLimits: { perMinute: config.anonymousPerMinute, perDay: config.anonymousPerDay },
    trustProxy: config.trustProxy,
  });

  const server = createHttpServer(app);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const base = `http://localhost:${port}/v1`;
  logger.info({ port, database: config.databasePath, environment: config.environment }, 'listening');
  process.stdout.write(`Animal Store API (${config.environment}) at ${base}, SQLite at ${config.databasePath}\n`);
  if (developmentKey) {
    process.stdout.write(
      `\nCreated a development key (Pro plan). It is shown once; keep it:\n  ${developmentKey}\n\n` +
        `Try:\n  curl -H 'Authorization: Bearer ${developmentKey}' ${base}/pets\n` +
        `  curl -H 'Authorization: Bearer ${developmentKey}' -H 'Content-Type: application/json' -d '{"name":"Rex","categoryId":3}' ${base}/pets\n` +
        'More keys: npm run keys -- create --plan free --name NAME\n\n',
    );
  }

  let stopping = false;
  // Responses sent while stopping close their connection, so keep-alive clients let go.
  server.on('request', (_req, res) => {
    if (stopping) res.setHeader('Connection', 'close');
  });
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: no new connections, finishing in-flight requests');
    const sweep = setInterval(() => server.closeIdleConnections(), 100);
    const force = setTimeout(() => {
      logger.warn('in-flight requests did not finish in time; closing their connections');
      server.closeAllConnections();
    }, config.shutdownTimeoutMs);
    force.unref();
    server.close(async () => {
      clearInterval(sweep);
      await store.close();
      logger.info('stopped');
      process.exit(0);
    });
    server.closeIdleConnections();
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n\nRun npm start -- --help for the settings.\n`);
  } else if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
    process.stderr.write(`Cannot listen: ${(error as Error).message}. Set PORT to a free port.\n`);
  } else {
    process.stderr.write(`The service failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  }
  process.exit(1);
});
