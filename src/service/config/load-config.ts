import type { BanPolicy } from '../limits/limiter.js';
import { PUBLIC_LIMITS, type Limits, type PublicLimits } from '../limits/plans.js';
import { LOCAL_ORIGINS } from '../allowed-origins.js';
import { ConfigError } from './config-error.js';
import { configFrom, type Config, type Setting } from './settings.js';

/**
 * Reads and validates the configuration from `env`, the one place the service reads
 * process.env. Throws one ConfigError naming every bad variable, so an operator fixes them all
 * at once.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const problems: string[] = [];
  const config = configFrom(<T>(setting: Setting<T>): T => {
    const raw = env[setting.variable];
    if (raw === undefined || raw === '') return setting.default;
    try {
      return setting.parse(raw.trim());
    } catch (error) {
      problems.push(`${setting.variable}=${JSON.stringify(raw)}: ${(error as Error).message}`);
      return setting.default;
    }
  });
  if (problems.length === 0) problems.push(...inconsistencies(config));
  if (problems.length > 0) throw new ConfigError(`Invalid configuration:\n  ${problems.join('\n  ')}`);
  return config;
}

/** What is wrong with settings that are each valid alone but not together. */
function inconsistencies(config: Config): string[] {
  const problems: string[] = [];
  if (config.metricsPort !== null && config.metricsPort === config.port) {
    problems.push("METRICS_PORT must not be the API's PORT: metrics are not for the API's clients");
  }
  if (config.trustProxy === true && config.nodeEnv === 'production') {
    problems.push(
      'TRUST_PROXY=true must not be used with NODE_ENV=production: it believes every X-Forwarded-For entry, so a client sends any ' +
        'address it likes as its own (escaping its limits, or getting another address banned). Set the number of proxies in front ' +
        'of the service (TRUST_PROXY=1 for one load balancer) or their addresses or subnets (TRUST_PROXY=10.0.0.0/8, or loopback)',
    );
  }
  if (config.headersTimeoutMs > config.requestTimeoutMs) {
    problems.push('HEADERS_TIMEOUT_MS must not be larger than REQUEST_TIMEOUT_MS: the headers are part of the request');
  }
  return problems;
}

/** The origins a browser may call from: CORS_ORIGINS, else none in production and local pages otherwise. */
export function corsOriginsOf(config: Pick<Config, 'corsOrigins' | 'nodeEnv'>): readonly string[] {
  return config.corsOrigins ?? (config.nodeEnv === 'production' ? [] : LOCAL_ORIGINS);
}

/** The limits of requests without a valid key, per client address (ANONYMOUS_PER_MINUTE, ANONYMOUS_PER_DAY). */
export function anonymousLimitsOf(config: Pick<Config, 'anonymousPerMinute' | 'anonymousPerDay'>): Limits {
  return { perMinute: config.anonymousPerMinute, perDay: config.anonymousPerDay };
}

/** When a key or address is banned, and for how long (BAN_AFTER_REFUSALS, BAN_SECONDS). */
export function banPolicyOf(config: Pick<Config, 'banAfterRefusals' | 'banSeconds'>): BanPolicy {
  return { banAfterRefusals: config.banAfterRefusals, banSeconds: config.banSeconds };
}

/** The limits of the documents and the health checks, per client address and minute as configured. */
export function publicLimitsOf(config: Pick<Config, 'documentsPerMinute' | 'healthPerMinute'>): PublicLimits {
  return {
    documents: { ...PUBLIC_LIMITS.documents, perMinute: config.documentsPerMinute },
    health: { ...PUBLIC_LIMITS.health, perMinute: config.healthPerMinute },
  };
}

/** How long clients may take to send headers and requests, and idle connections stay open. */
export function httpTimeoutsOf(config: Pick<Config, 'headersTimeoutMs' | 'requestTimeoutMs' | 'keepAliveTimeoutMs'>) {
  return {
    headersTimeoutMs: config.headersTimeoutMs,
    requestTimeoutMs: config.requestTimeoutMs,
    keepAliveTimeoutMs: config.keepAliveTimeoutMs,
  };
}
