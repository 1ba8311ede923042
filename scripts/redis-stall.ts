/**
 * Part 6 of `npm run adversarial`: two instances sharing limits through a Redis that stalls; and
 * the helpers every part's report uses.
 */
import { randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
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

/** Part 6 of the report. */
export function stallLines(stall: RedisStallFigures | null): string[] {
  if (!stall) return ['6. Redis stall: skipped (no Redis: --redis-url or TEST_REDIS_URL)'];
  const after = stall.sharedAgainAfter;
  return [
    `6. Redis stall: two instances, Redis passing nothing for ${stall.stallSeconds} s (${stall.apartDuringStall ? 'they counted apart meanwhile' : 'they still shared limits meanwhile'})`,
    `   limits shared again ${after === null ? 'NOT within 60 s' : `${after.toFixed(1)} s`} after Redis answered again (target: under 10 s) ${verdict(after !== null && after < 10)}`,
  ];
}
