import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import createClient from 'openapi-fetch';
import { pino } from 'pino';
import type { paths } from '@animal-store/client';
import { anonymousLimitsOf, banPolicyOf } from '../../src/service/config/load-config.js';
import { defaultConfig } from '../../src/service/config/settings.js';
import { issueKey } from '../../src/service/keys/issue-key.js';
import type { KeyEnvironment } from '../../src/service/keys/key-format.js';
import type { LimitCounters } from '../../src/service/limits/counters.js';
import { RateLimiter, type BanPolicy } from '../../src/service/limits/limiter.js';
import { memoryCounters } from '../../src/service/limits/memory-counters.js';
import type { Limits, Plan } from '../../src/service/limits/plans.js';
import type { PublicLimits } from '../../src/service/limits/plans.js';
import { startService, type ConnectionLimits, type HttpTimeouts } from '../../src/service/start-service.js';
import { basePathsOf } from 'contract-kit';
import { loadSpec, type OpenApiDocument } from '../../src/contract/load-spec.js';
import type { PreviousVersion } from '../../src/contract/released-contracts.js';
import type { Handlers } from '../../src/service/http/handler-types.js';
import { PostgresStore } from '../../src/service/store/postgres/postgres-store.js';
import { SqliteStore } from '../../src/service/store/sqlite/sqlite-store.js';
import type { Store } from '../../src/service/store/store.js';
import { newSchemaName, TEST_DATABASE_URL } from './services.js';
import { FakeClock } from './fake-clock.js';
import type { Clock } from '../../src/service/clock.js';
import type { ServiceMetrics } from '../../src/service/metrics/service-metrics.js';

/** Options of {@link startTestServer}. */
export interface TestServerOptions {
  environment?: KeyEnvironment;
  anonymousLimits?: Limits;
  ban?: BanPolicy;
  handlers?: Handlers;
  trustProxy?: boolean | number | string;
  /** Receives the JSON log lines; logs are dropped without it. */
  logLines?: string[];
  /** The store engine: a throw-away SQLite file, or a fresh schema on TEST_DATABASE_URL. @default 'sqlite' */
  engine?: 'sqlite' | 'postgres';
  /** An already opened store (the test closes it through the server). */
  store?: Store;
  /** The limiter's counters. @default memoryCounters() */
  counters?: LimitCounters;
  /** The HTTP server's timeouts (short ones to test slow clients). @default HTTP_TIMEOUTS */
  timeouts?: Partial<HttpTimeouts>;
  /** The caps on connections. @default those of MAX_CONNECTIONS and MAX_CONNECTIONS_PER_ADDRESS */
  connections?: Partial<ConnectionLimits>;
  /** Return once every operation's validator is compiled, as a load balancer waits for /readyz to say 200. @default true */
  waitUntilReady?: boolean;
  /** The contract the app serves and validates against. @default openapi.yaml */
  spec?: OpenApiDocument;
  /** Released contracts of earlier majors served beside it. @default contracts/released's below openapi.yaml's major, without spec */
  previousVersions?: readonly PreviousVersion[];
  /** Limits per address of the documents and health checks. @default PUBLIC_LIMITS */
  publicLimits?: PublicLimits;
  /** Origins allowed to call from a browser (CORS). @default none */
  corsOrigins?: readonly string[];
  /** The clock of the app and limiter, when time must pass by itself (a browser waiting Retry-After). @default a FakeClock */
  clock?: Clock;
  /** Where the app counts requests, decisions and errors. @default none */
  metrics?: ServiceMetrics;
  /** The rendered reference served at /docs. @default build/docs/index.html */
  docsPath?: string;
  /** The loopback port to listen on (another instance's, after it stopped). @default a free one */
  port?: number;
}

/** The real app on a throw-away SQLite file, listening on a free loopback port, with a fake clock. */
export async function startTestServer(options: TestServerOptions = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'animal-store-test-'));
  const databasePath = join(dir, 'store.db');
  const store =
    options.store ??
    (options.engine === 'postgres'
      ? await PostgresStore.open({ url: TEST_DATABASE_URL, schema: newSchemaName() })
      : SqliteStore.open(databasePath));
  const fakeClock = new FakeClock();
  const clock = options.clock ?? fakeClock;
  const environment = options.environment ?? 'production';
  const defaults = defaultConfig();
  const limiter = new RateLimiter(options.counters ?? memoryCounters(), clock, options.ban ?? banPolicyOf(defaults));
  const anonymousLimits = options.anonymousLimits ?? anonymousLimitsOf(defaults);
  const service = await startService({
    store,
    limiter,
    clock,
    logger: options.logLines
      ? pino({ level: 'info' }, { write: (line: string) => void options.logLines!.push(line) })
      : pino({ level: 'silent' }),
    environment,
    anonymousLimits,
    handlers: options.handlers,
    trustProxy: options.trustProxy,
    spec: options.spec,
    previousVersions: options.previousVersions,
    publicLimits: options.publicLimits,
    corsOrigins: options.corsOrigins,
    metrics: options.metrics,
    docsPath: options.docsPath,
    timeouts: options.timeouts,
    connections: options.connections,
    port: options.port ?? 0,
    host: '127.0.0.1',
    alsoClose: [() => rmSync(dir, { recursive: true, force: true })],
  });
  if (options.waitUntilReady ?? true) await service.ready;
  const { port } = service;
  // Under the contract's first server path (/v1), as the app serves it.
  const baseUrl = `http://127.0.0.1:${port}${basePathsOf(options.spec ?? loadSpec())[0]}`;

  /** Issues a key straight into the store and returns it. */
  const newKey = async (plan: Plan = 'pro', limits?: Limits, env: KeyEnvironment = environment) =>
    (await issueKey(store, { name: `test ${plan}`, plan, environment: env, ...limits }, new Date(clock.now()))).key;

  /** A typed client (openapi-fetch) sending `key`. */
  const client = (key?: string) => createClient<paths>({ baseUrl, headers: key ? { Authorization: `Bearer ${key}` } : {} });

  return {
    baseUrl,
    origin: `http://127.0.0.1:${port}`,
    port,
    databasePath,
    store,
    /** The FakeClock the app runs on (not moving the app's time when options.clock was given). */
    clock: fakeClock,
    newKey,
    client,
    /** Stops at once: connections of requests in flight are closed, not waited for. */
    close: () => service.stop({ graceMs: 0 }),
  };
}

export type TestServer = Awaited<ReturnType<typeof startTestServer>>;
