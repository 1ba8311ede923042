import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { issueKey } from '../../src/service/keys/issue-key.js';
import { SqliteStore } from '../../src/service/store/sqlite/sqlite-store.js';
import { freePort } from '../../src/shared/free-port.js';
import { startServiceProcess } from '../../scripts/support/server-process.js';
import { killAtEnd } from '../support/processes.js';

// Prometheus metrics on their own port, scraped after real traffic.

const dir = mkdtempSync(join(tmpdir(), 'animal-store-metrics-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The value of one sample of the exposition text, or undefined. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const match = /^([a-z_:]+)(?:\{([^}]*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = Object.fromEntries(
      [...(match[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((m): [string, string] => [m[1] ?? '', m[2] ?? '']),
    );
    if (Object.entries(labels).every(([k, v]) => found[k] === v) && Object.keys(found).length === Object.keys(labels).length)
      return Number(match[3]);
  }
  return undefined;
}

describe('METRICS_PORT', () => {
  it('counts requests by operation and status, limit decisions by plan and replays, on a port of its own', async () => {
    const databasePath = join(dir, 'store.db');
    const store = SqliteStore.open(databasePath);
    const now = new Date();
    const free = (await issueKey(store, { name: 'free', plan: 'free', environment: 'production' }, now)).key;
    // Three a day too: the service's clock is the real one, and a minute could end between the
    // third request and the fourth; a day ends during the test only at midnight UTC.
    const small = (await issueKey(store, { name: 'small', plan: 'enterprise', environment: 'production', perMinute: 3, perDay: 3 }, now))
      .key;
    await store.close();
    const metricsPort = await freePort();
    const server = await startServiceProcess(databasePath, { METRICS_PORT: String(metricsPort) }, { onSpawn: killAtEnd });
    try {
      const auth = (key: string) => ({ Authorization: `Bearer ${key}` });
      for (let i = 0; i < 5; i++) expect((await fetch(`${server.baseUrl}/pets`, { headers: auth(free) })).status).toBe(200);
      const post = () =>
        fetch(`${server.baseUrl}/pets`, {
          method: 'POST',
          headers: { ...auth(free), 'Content-Type': 'application/json', 'Idempotency-Key': 'metrics-test-1' },
          body: '{"name":"Rex","categoryId":3}',
        });
      expect((await post()).status).toBe(201);
      expect((await post()).headers.get('idempotent-replayed')).toBe('true');
      for (let i = 0; i < 3; i++) expect((await fetch(`${server.baseUrl}/pets`)).status).toBe(401);
      const statuses = [];
      for (let i = 0; i < 5; i++) statuses.push((await fetch(`${server.baseUrl}/pets`, { headers: auth(small) })).status);
      expect(statuses).toEqual([200, 200, 200, 429, 429]);
      expect((await fetch(`${new URL(server.baseUrl).origin}/healthz`)).status).toBe(200);

      const response = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
      const text = await response.text();
      const requests = (operation: string, method: string, status: string) =>
        sample(text, 'animal_store_http_requests_total', { operation, method, status });
      expect(requests('listPets', 'GET', '200')).toBe(8);
      expect(requests('createPet', 'POST', '201')).toBe(2);
      expect(requests('listPets', 'GET', '401')).toBe(3);
      expect(requests('listPets', 'GET', '429')).toBe(2);
      expect(requests('health', 'GET', '200')).toBeGreaterThanOrEqual(1);
      expect(
        sample(text, 'animal_store_http_request_duration_seconds_count', { operation: 'listPets', method: 'GET', status: '200' }),
      ).toBe(8);
      const decisions = (outcome: string, plan: string) => sample(text, 'animal_store_rate_limit_decisions_total', { outcome, plan });
      expect(decisions('allowed', 'free')).toBe(7);
      expect(decisions('allowed', 'anonymous')).toBe(3);
      expect(decisions('allowed', 'enterprise')).toBe(3);
      expect(decisions('refused', 'enterprise')).toBe(2);
      expect(sample(text, 'animal_store_idempotent_replays_total')).toBe(1);
      expect(sample(text, 'animal_store_store_errors_total')).toBe(0);
      expect(sample(text, 'animal_store_redis_fallbacks_total')).toBe(0);
      expect(text).toMatch(/^nodejs_eventloop_lag_seconds \d/m);
      expect(text).toMatch(/^process_resident_memory_bytes \d/m);
      // Not on the API's port: a path of nothing there.
      const onApi = await fetch(`${new URL(server.baseUrl).origin}/metrics`);
      expect(onApi.status).toBe(404);
      expect(await onApi.text()).not.toContain('animal_store_');
      console.log(
        `metrics after 16 API requests: listPets 200 ${requests('listPets', 'GET', '200')}, 401 ${requests('listPets', 'GET', '401')}, 429 ${requests('listPets', 'GET', '429')}; createPet 201 ${requests('createPet', 'POST', '201')}; replays 1; decisions free/anonymous/enterprise allowed ${decisions('allowed', 'free')}/${decisions('allowed', 'anonymous')}/${decisions('allowed', 'enterprise')}, enterprise refused ${decisions('refused', 'enterprise')}`,
      );
    } finally {
      await server.stop();
    }
  }, 60_000);
});
