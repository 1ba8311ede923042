/**
 * Parts 4 to 6 of `npm run adversarial`: floods of idle connections beside a polite client (many
 * connections from each of a few addresses, and one from each of more addresses than the service
 * holds connections), and two instances sharing limits through a Redis that stalls.
 */
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { request as httpRequest } from 'node:http';
import { Worker } from 'node:worker_threads';
import type { ServerProcess } from './support/server-process.js';
import { deleteKeysUnder } from './support/redis-keys.js';
import { startTcpProxy } from './support/tcp-proxy.js';

/** The `p`th percentile of `values`. */
export const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
};

/** How a report line ends. */
export const verdict = (met: boolean) => (met ? 'met' : 'NOT met');

/** What a polite client met while idle connections flooded the service. */
export interface ConnectionFloodFigures {
  /** Idle connections the flood opened (again, once the service closed them), and from how many addresses. */
  opened: number;
  addresses: number;
  /** Of them, the ones open on the flood's side when the polite client was done (held by the service, or connected and not yet accepted). */
  heldAtEnd: number;
  /** The polite client's latencies (each GET on a new connection) and its failures, by error. */
  latencies: number[];
  failures: Map<string, number>;
}

/**
 * The flood of idle connections, run in a worker thread so that its churn does not delay the
 * polite client's event loop: `connections` connections to `port` from loopback addresses
 * 127.2.x.y (all of 127/8 is loopback on Linux), each opened again a second after it closes.
 * It posts 'ready' once all are open, and, when told 'stop', the number opened and still open.
 */
const CONNECTION_FLOOD = `
const { parentPort, workerData } = require('node:worker_threads');
const { connect } = require('node:net');
const { port, connections, addresses } = workerData;
let flooding = true;
let opened = 0;
const open = new Set();
const openFrom = (address) => new Promise((resolve) => {
  opened++;
  const socket = connect({ port, host: '127.0.0.1', localAddress: address }, resolve);
  open.add(socket);
  socket.on('error', () => undefined);
  socket.on('close', () => {
    open.delete(socket);
    resolve();
    if (flooding) setTimeout(() => flooding && openFrom(address), 1000);
  });
});
const address = (n) => '127.2.' + Math.floor(n / 250) + '.' + ((n % 250) + 1);
parentPort.on('message', () => {
  flooding = false;
  parentPort.postMessage({ opened, heldAtEnd: open.size });
  for (const socket of open) socket.destroy();
  parentPort.close();
});
(async () => {
  for (let i = 0; i < connections; i += 500) {
    const batch = Math.min(500, connections - i);
    await Promise.all(Array.from({ length: batch }, (_, j) => openFrom(address((i + j) % addresses))));
  }
  parentPort.postMessage('ready');
})();
`;

/** One GET on a new connection from 127.0.0.1: its status and milliseconds, or the error that ended it. */
function getOnNewConnection(
  origin: string,
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; ms: number } | string> {
  const started = performance.now();
  return new Promise((resolve) => {
    const req = httpRequest(`${origin}${path}`, { headers, agent: false, timeout: 10_000 }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started }));
    });
    req.on('timeout', () => req.destroy(new Error('no answer within 10 s')));
    req.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    req.end();
  });
}

/**
 * Opens `connections` idle connections from `addresses` loopback addresses (CONNECTION_FLOOD),
 * which send nothing and are opened again a second after the service closes them; then, for
 * `seconds`, a polite client lists animals 20 times a second, each time on a new connection.
 */
async function floodConnections(
  server: ServerProcess,
  politeKey: string,
  options: { connections: number; addresses: number; seconds: number },
): Promise<ConnectionFloodFigures> {
  const worker = new Worker(CONNECTION_FLOOD, { eval: true, workerData: { port: server.port, ...options } });
  await once(worker, 'message');
  const latencies: number[] = [];
  const failures = new Map<string, number>();
  const until = performance.now() + options.seconds * 1000;
  while (performance.now() < until) {
    const next = performance.now() + 50;
    const outcome = await getOnNewConnection(server.origin, '/v1/pets?limit=20', { Authorization: `Bearer ${politeKey}` });
    if (typeof outcome === 'string' || outcome.status !== 200) {
      const reason = typeof outcome === 'string' ? outcome : String(outcome.status);
      failures.set(reason, (failures.get(reason) ?? 0) + 1);
    } else latencies.push(outcome.ms);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, next - performance.now())));
  }
  worker.postMessage('stop');
  const [{ opened, heldAtEnd }] = (await once(worker, 'message')) as [{ opened: number; heldAtEnd: number }];
  await worker.terminate();
  return { opened, addresses: options.addresses, heldAtEnd, latencies, failures };
}

/**
 * Parts 4 and 5: the polite client while `connections` idle connections from `connectionAddresses`
 * loopback addresses flood the service, then while `spreadConnections` do, one from each address.
 */
export async function connectionFloods(
  server: ServerProcess,
  politeKey: string,
  options: { connections: number; connectionAddresses: number; spreadConnections: number; seconds: number },
  log: (line: string) => void,
): Promise<{ connections: ConnectionFloodFigures; spread: ConnectionFloodFigures }> {
  const { connections, connectionAddresses, spreadConnections, seconds } = options;
  log(`4/7 ${connections} idle connections from ${connectionAddresses} loopback addresses, and a polite client for ${seconds} s`);
  const crowd = await floodConnections(server, politeKey, { connections, addresses: connectionAddresses, seconds });
  log(`5/7 ${spreadConnections} idle connections, one from each loopback address, and a polite client for ${seconds} s`);
  const spread = await floodConnections(server, politeKey, { connections: spreadConnections, addresses: spreadConnections, seconds });
  return { connections: crowd, spread };
}

/** What the stall of Redis under two instances showed. */
export interface RedisStallFigures {
  stallSeconds: number;
  /** Whether the instances counted apart while Redis was silent (each in its own memory). */
  apartDuringStall: boolean;
  /** Seconds from Redis answering again until the two instances shared limits again; null: not within 60 s. */
  sharedAgainAfter: number | null;
}

/** The X-RateLimit-Remaining of an anonymous GET from `address` (X-Forwarded-For, to an instance that trusts it). */
async function remainingFor(instance: ServerProcess, address: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${instance.origin}/v1/pets`, { headers: { 'X-Forwarded-For': address }, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(Number(res.headers['x-ratelimit-remaining'])));
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * Two instances whose Redis connections go through `proxy`: the proxy keeps their connections
 * open but passes nothing for `stallSeconds` (and answers no new one), then passes traffic again.
 * Limits are shared when a new client address counted on one instance is counted on the other.
 */
async function measureRedisStall(
  instances: [ServerProcess, ServerProcess],
  proxy: Awaited<ReturnType<typeof startTcpProxy>>,
  stallSeconds: number,
): Promise<RedisStallFigures> {
  let probes = 0;
  const shared = async () => {
    const address = `10.77.${Math.floor(probes / 250)}.${(probes++ % 250) + 1}`;
    const first = await remainingFor(instances[0], address);
    return (await remainingFor(instances[1], address)) === first - 1;
  };
  if (!(await shared())) throw new Error('the two instances do not share limits through Redis even before the stall');
  proxy.setMode('stall');
  await new Promise((resolve) => setTimeout(resolve, stallSeconds * 1000));
  const apartDuringStall = !(await shared());
  proxy.setMode('forward');
  const answering = performance.now();
  let sharedAgainAfter: number | null = null;
  while (performance.now() - answering < 60_000) {
    if (await shared()) {
      sharedAgainAfter = (performance.now() - answering) / 1000;
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { stallSeconds, apartDuringStall, sharedAgainAfter };
}

/** Part 6: two instances on Redis through a proxy that stalls; null without a Redis URL. */
export async function redisStall(
  redisUrl: string,
  stallSeconds: number,
  startInstance: (name: string, env: Record<string, string>) => Promise<ServerProcess>,
): Promise<RedisStallFigures | null> {
  if (!redisUrl) return null;
  const target = new URL(redisUrl);
  const proxy = await startTcpProxy(target.hostname, Number(target.port || 6379));
  const viaProxy = new URL(redisUrl);
  viaProxy.hostname = '127.0.0.1';
  viaProxy.port = String(proxy.port);
  const env = { REDIS_URL: viaProxy.toString(), REDIS_KEY_PREFIX: `adversarial-${randomBytes(6).toString('hex')}` };
  const instances: ServerProcess[] = [];
  try {
    for (const name of ['instance-a', 'instance-b']) instances.push(await startInstance(name, env));
    return await measureRedisStall([instances[0]!, instances[1]!], proxy, stallSeconds);
  } finally {
    for (const instance of instances) await instance.stop();
    await proxy.close();
    await deleteKeysUnder(redisUrl, env.REDIS_KEY_PREFIX);
  }
}

/**
 * Parts 4 and 5 of the report: `title` names the flood; with `latencyTarget`, the polite
 * client's p99 must be under 50 ms too, else every one of its requests must be served.
 */
export function connectionLines(
  title: string,
  { opened, addresses, heldAtEnd, latencies, failures }: ConnectionFloodFigures,
  latencyTarget: boolean,
): string[] {
  const failed = [...failures.values()].reduce((a, b) => a + b, 0);
  const p99 = percentile(latencies, 99);
  const reasons = failed === 0 ? '' : ` (${[...failures].map(([reason, n]) => `${n} × ${reason}`).join(', ')})`;
  const target = latencyTarget ? 'p99 under 50 ms, no failure' : 'every request served';
  const met = failed === 0 && (!latencyTarget || p99 < 50);
  return [
    `${title}: ${opened.toLocaleString('en-US')} idle connections opened from ${addresses.toLocaleString('en-US')} loopback addresses, ${heldAtEnd.toLocaleString('en-US')} open on its side at the end (held by the service, or not yet accepted)`,
    `   polite client (an address holding none), ${latencies.length + failed} GETs on new connections: ${failed} failed${reasons}; p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, max ${Math.max(...latencies).toFixed(1)} ms (target: ${target}) ${verdict(met)}`,
  ];
}

/** Part 6 of the report. */
export function stallLines(stall: RedisStallFigures | null): string[] {
  if (!stall) return ['6. Redis stall: skipped (no Redis: --redis-url or TEST_REDIS_URL)'];
  const after = stall.sharedAgainAfter;
  return [
    `6. Redis stall: two instances, Redis passing nothing for ${stall.stallSeconds} s (${stall.apartDuringStall ? 'they counted apart meanwhile' : 'they still shared limits meanwhile'})`,
    `   limits shared again ${after === null ? 'NOT within 60 s' : `${after.toFixed(1)} s`} after Redis answered again (target: under 10 s) ${verdict(after !== null && after < 10)}`,
  ];
}
