import { afterAll, describe, expect, it } from 'vitest';
import { bin, ROOT, run } from '../support/run.js';
import { startServiceProcess } from '../../scripts/support/server-process.js';
import { dropTestSchemas, newRedisPrefix, postgresEnabled, redisEnabled, TEST_REDIS_URL, urlWithNewSchema } from '../support/services.js';
import { killAtEnd } from '../support/processes.js';

const enabled = postgresEnabled() && redisEnabled();
const redisKeys = newRedisPrefix();
afterAll(async () => {
  if (enabled) await redisKeys.cleanup();
  await dropTestSchemas();
});

describe.skipIf(!enabled)('several instances on one PostgreSQL and one Redis', () => {
  it('share animals, limits, bans and Idempotency-Keys', async () => {
    const databaseUrl = await urlWithNewSchema();
    // A Redis command timed out is counted in the instance's memory, and no longer shared: 10 s
    // is far beyond what a local Redis takes (0.2 ms; 7 ms with both cores busy).
    const env = { DATABASE_URL: databaseUrl, REDIS_URL: TEST_REDIS_URL, REDIS_KEY_PREFIX: redisKeys.prefix, REDIS_TIMEOUT_MS: '10000' };
    const [a, b] = await Promise.all([
      startServiceProcess('', env, { onSpawn: killAtEnd }),
      startServiceProcess('', env, { onSpawn: killAtEnd }),
    ]);
    const instances = { A: a, B: b };

    // Keys are issued with the CLI, against the same PostgreSQL, as an operator would.
    const keys = (...args: string[]) => run(bin('tsx'), [`${ROOT}src/service/keys/cli.ts`, ...args], { env });
    const issue = async (...args: string[]) => /\n(as_prod_[0-9A-Za-z]{38})\n/.exec((await keys('create', ...args)).stdout)![1]!;
    const worker = await issue('--plan', 'business', '--name', 'worker');
    // 20 a day in all; the minute window (1000) stays out of the way.
    const limited = await issue('--plan', 'enterprise', '--name', 'limited', '--per-minute', '20', '--per-day', '20');

    const call = (which: 'A' | 'B', key: string, init: RequestInit = {}, path = '/pets') =>
      fetch(`${instances[which].baseUrl}${path}`, {
        ...init,
        headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', ...(init.headers as object) },
      });

    // An animal created through A is listed through B.
    const created = (await (await call('A', worker, { method: 'POST', body: '{"name":"Shared","categoryId":1}' })).json()) as {
      id: number;
    };
    const listed = (await (await call('B', worker, {}, '/pets?limit=100')).json()) as { id: number }[];
    expect(listed.map((p) => p.id)).toContain(created.id);

    // One key's limit holds across both: 40 requests spread over A and B, 20 accepted in all.
    const tally = { A: { sent: 0, accepted: 0, refused: 0 }, B: { sent: 0, accepted: 0, refused: 0 } };
    for (let i = 0; i < 40; i++) {
      const which = i % 2 === 0 ? 'A' : 'B';
      const response = await call(which, limited);
      tally[which].sent++;
      if (response.status === 200) tally[which].accepted++;
      else {
        expect(response.status).toBe(429);
        tally[which].refused++;
      }
    }
    console.log(`limit across instances: ${JSON.stringify(tally)} (plan: 20 a day)`);
    const inMemory = Object.entries(instances).filter(([, p]) => /counting this request in memory/.test(p.output()));
    expect(
      tally.A.accepted + tally.B.accepted,
      `accepted in all; counted in memory on: ${inMemory.map(([n]) => n).join(', ') || 'none'}`,
    ).toBe(20);

    // A ban made on A holds on B. Refusals count once 2 s have passed since the window's first
    // refusal, and beyond the previous window's refusals (clients coming back): when a minute
    // ends meanwhile, this client's own refusals of the minute before are excused once more, so
    // the loop allows at least 30 s (a busy machine only makes each try slower).
    let banned = 0;
    for (let i = 0; i < 300 && banned === 0; i++) {
      const body = (await (await call('A', limited)).json()) as { code: string };
      if (body.code === 'key_temporarily_banned') banned = i + 1;
      else await new Promise((r) => setTimeout(r, 100));
    }
    expect(banned).toBeGreaterThan(0);
    const onB = await call('B', limited);
    expect(onB.status).toBe(429);
    expect(((await onB.json()) as { code: string }).code).toBe('key_temporarily_banned');
    console.log(
      `ban: made on A after ${banned} more refused requests (100 ms apart), Retry-After ${onB.headers.get('retry-after')} s on B`,
    );

    // A POST retried through the other instance with the same Idempotency-Key creates one animal.
    const idempotent = { method: 'POST', body: '{"name":"Once","categoryId":2}', headers: { 'Idempotency-Key': 'instances-1' } };
    const first = await call('A', worker, idempotent);
    const retry = await call('B', worker, idempotent);
    expect(first.status).toBe(201);
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    const firstBody = (await first.json()) as { id: number };
    expect(await retry.json()).toEqual(firstBody);
    const all = (await (await call('A', worker, {}, '/pets?limit=100')).json()) as { name: string }[];
    expect(all.filter((p) => p.name === 'Once')).toHaveLength(1);
    await Promise.all([a.stop(), b.stop()]);
  }, 120_000);
});
