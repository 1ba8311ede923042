import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';
import type { ServiceMetrics } from './service-metrics.js';

/** Latency buckets, in seconds: from a cached page (under a millisecond) to a timed-out store. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * The service's metrics in a registry of their own, with prom-client's default process metrics
 * (CPU, memory, handles, garbage collection, event-loop lag) beside them.
 */
export function prometheusMetrics(registry = new Registry()): { metrics: ServiceMetrics; registry: Registry } {
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 10 });
  const { requests, duration, decisions, storeErrors, redisFallbacks, replays } = instruments(registry);
  // Present at 0 from the start, so a rate() has a first point.
  for (const outcome of ['allowed', 'refused', 'banned']) decisions.labels(outcome, 'anonymous').inc(0);
  return {
    registry,
    metrics: {
      request(operation, method, status, seconds) {
        const labels = { operation, method, status: String(status) };
        requests.inc(labels);
        duration.observe(labels, seconds);
      },
      rateLimit(outcome, plan) {
        decisions.inc({ outcome, plan });
      },
      storeError() {
        storeErrors.inc();
      },
      redisFallback() {
        redisFallbacks.inc();
      },
      idempotentReplay() {
        replays.inc();
      },
    },
  };
}

/** The counters and the histogram of {@link ServiceMetrics}, registered in `registry`. */
function instruments(registry: Registry) {
  const registers = [registry];
  return {
    requests: new Counter({
      name: 'animal_store_http_requests_total',
      help: 'HTTP responses sent, by operationId, method and status.',
      labelNames: ['operation', 'method', 'status'],
      registers,
    }),
    duration: new Histogram({
      name: 'animal_store_http_request_duration_seconds',
      help: 'Time from a request arriving to its response being sent, by operationId, method and status.',
      labelNames: ['operation', 'method', 'status'],
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    decisions: new Counter({
      name: 'animal_store_rate_limit_decisions_total',
      help: 'Rate-limit decisions on API requests, by outcome (allowed, refused, banned) and plan (anonymous: no valid key).',
      labelNames: ['outcome', 'plan'],
      registers,
    }),
    storeErrors: new Counter({
      name: 'animal_store_store_errors_total',
      help: 'Requests the store failed (unavailable, full, timed out).',
      registers,
    }),
    redisFallbacks: new Counter({
      name: 'animal_store_redis_fallbacks_total',
      help: "Requests counted in this instance's memory because Redis failed or was too slow.",
      registers,
    }),
    replays: new Counter({
      name: 'animal_store_idempotent_replays_total',
      help: 'POSTs answered again from their Idempotency-Key.',
      registers,
    }),
  };
}
