import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import { operationOf } from 'contract-kit';
import type { Logger } from 'pino';
import { systemClock, type Clock } from '../../clock.js';
import { canonicalAddress } from 'contract-kit';
import { NO_METRICS, type ServiceMetrics } from '../../metrics/service-metrics.js';
import { RequestLocals } from './locals.js';

const VALID_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** A `traceparent` header (W3C Trace Context, version 00 or a later one): its trace id, not all zeros. */
const TRACEPARENT = /^[0-9a-e][0-9a-f]-(?!0{32})([0-9a-f]{32})-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2}(?:-.*)?$/;

/** The metrics' operation label of a request the contract does not describe: bounded, never the path itself. */
function outsideTheContract(path: string): string {
  if (path === '/healthz' || path === '/readyz') return 'health';
  if (path === '/docs' || path.startsWith('/openapi.')) return 'docs';
  return 'none';
}

/** Lines one client address may have logged for refused (4xx) and abandoned requests per window. */
const REFUSED_LINES_PER_WINDOW = 20;
const WINDOW_MS = 10_000;
/** Addresses counted per window; past it, addresses not seen yet in the window share one count. */
const MAX_ADDRESSES = 10_000;

/**
 * What one client can make the service log: a client refused again and again (a flood of 401s or
 * 429s), or whose requests are abandoned again and again (slow bodies cut off at the request
 * timeout), has its first lines of each window logged, and the rest counted; when the window is
 * over, one line per such address says how many were left out.
 */
class RefusalLogBudget {
  private windowStart = Number.NEGATIVE_INFINITY;
  private readonly refused = new Map<string, number>();

  constructor(
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  /** Ends the window when it is over, logging what it left out. */
  roll(): void {
    const now = this.clock.now();
    if (now - this.windowStart < WINDOW_MS) return;
    for (const [ip, count] of this.refused) {
      if (count > REFUSED_LINES_PER_WINDOW) {
        this.logger.warn({ ip, suppressed: count - REFUSED_LINES_PER_WINDOW, seconds: WINDOW_MS / 1000 }, 'refused requests not logged');
      }
    }
    this.refused.clear();
    this.windowStart = now;
  }

  /** Whether the line of a request refused from `address` may be written. */
  take(address: string): boolean {
    const subject = this.refused.has(address) || this.refused.size < MAX_ADDRESSES ? address : 'other addresses';
    const count = (this.refused.get(subject) ?? 0) + 1;
    this.refused.set(subject, count);
    return count <= REFUSED_LINES_PER_WINDOW;
  }
}

/** A request's line, the address its budget counts when it was refused or abandoned, and whether it was abandoned. */
interface RequestLine {
  fields: Record<string, unknown>;
  refusedBy: string | undefined;
  abandoned?: boolean;
}

/**
 * The request lines of one turn of the event loop, logged together at its end (setImmediate)
 * rather than each as its response finishes: pino's code then runs once for all of them instead
 * of between the requests' own. The lines are the same; their `time` is the end of the turn in
 * which the responses finished (`ms` is each request's own time).
 */
class RequestLines {
  private pending: RequestLine[] = [];

  constructor(
    private readonly budget: RefusalLogBudget,
    private readonly logger: Logger,
  ) {}

  add(line: RequestLine): void {
    if (this.pending.push(line) === 1) setImmediate(this.write);
  }

  private readonly write = (): void => {
    const lines = this.pending;
    this.pending = [];
    this.budget.roll();
    for (const { fields, refusedBy, abandoned } of lines) {
      // The request's own line, without making it a child logger of its own.
      if (refusedBy !== undefined && !this.budget.take(refusedBy)) continue;
      if (abandoned) this.logger.warn(fields, 'request abandoned');
      else this.logger.info(fields, 'request');
    }
  };
}

/**
 * Gives every request an id (the client's `X-Request-Id` when it is a sane one), echoes it, sets
 * up `res.locals` (see locals.ts) and logs one line per response (see RequestLines), within a
 * budget per client address for refused requests (see RefusalLogBudget). The Authorization
 * header is never logged.
 */
export function requestContext(logger: Logger, metrics: ServiceMetrics = NO_METRICS, clock: Clock = systemClock): RequestHandler {
  const lines = new RequestLines(new RefusalLogBudget(clock, logger), logger);
  return (req, res, next) => {
    const incoming = req.headers['x-request-id'];
    const requestId = typeof incoming === 'string' && VALID_REQUEST_ID.test(incoming) ? incoming : randomUUID();
    const locals = new RequestLocals(requestId, logger);
    res.locals = locals;
    res.setHeader('X-Request-Id', requestId);
    const started = process.hrtime.bigint();
    // By 'finish' Node may have let go of the socket (a connection closed after an early answer,
    // such as a 413 before the body was read), and req.ip would then throw: keep the address.
    const remoteAddress = req.socket.remoteAddress;
    // W3C Trace Context: a caller's trace id goes into the log line, to follow a request across services.
    const traceparent = req.headers.traceparent;
    // Version 00 has exactly four fields (55 characters); later versions may add more.
    const traceId =
      typeof traceparent === 'string' && !(traceparent.startsWith('00-') && traceparent.length !== 55)
        ? TRACEPARENT.exec(traceparent)?.[1]
        : undefined;
    const lineOf = (more: Record<string, unknown>) => {
      const ip = req.socket ? req.ip : remoteAddress;
      const fields = { requestId, traceId, method: req.method, path: req.originalUrl.split('?')[0]!, ...more, keyId: locals.key?.id, ip };
      return { fields, address: canonicalAddress(ip) ?? canonicalAddress(remoteAddress) ?? 'unknown' };
    };
    let finished = false;
    res.on('finish', () => {
      finished = true;
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const status = res.statusCode;
      const { fields, address } = lineOf({ status, ms });
      metrics.request(operationOf(req)?.name ?? outsideTheContract(fields.path), req.method, status, ms / 1000);
      lines.add({ fields, refusedBy: status >= 400 && status < 500 ? address : undefined });
    });
    // The connection closed before the answer went out: the client went away, or was cut off (a
    // body too slow for REQUEST_TIMEOUT_MS, a stop's timeout). A warning, budgeted as refusals are.
    res.on('close', () => {
      if (finished) return;
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const reason = req.complete
        ? 'the connection closed before the answer was sent'
        : 'the connection closed before the request was complete (the client went away, or took longer than REQUEST_TIMEOUT_MS)';
      const { fields, address } = lineOf({ ms, reason });
      lines.add({ fields, refusedBy: address, abandoned: true });
    });
    next();
  };
}
