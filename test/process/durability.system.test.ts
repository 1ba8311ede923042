import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startServiceProcess } from '../../scripts/support/server-process.js';
import { killAtEnd } from '../support/processes.js';
import { processEngines } from '../support/process-stores.js';
import { dropTestSchemas } from '../support/services.js';

const dir = mkdtempSync(join(tmpdir(), 'animal-store-process-'));
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await dropTestSchemas();
});

const engines = processEngines(dir, 'kill');

describe.each(engines.filter((e) => e.enabled))('the service process on $name', ({ name, prepare }) => {
  it('keeps every animal it acknowledged with 201 when killed with SIGKILL mid-load', async () => {
    const { databasePath, env, key } = await prepare();
    const first = await startServiceProcess(databasePath, env, { onSpawn: killAtEnd });
    const acknowledged = new Map<number, string>();
    let sent = 0;
    let failed = 0;
    let stop = false;
    let stopped = 0;
    const worker = async (w: number) => {
      try {
        for (let i = 0; !stop; i++) {
          const name = `w${w}-${i}`;
          sent++;
          const response = await fetch(`${first.baseUrl}/pets`, {
            method: 'POST',
            headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
            body: JSON.stringify({ name, categoryId: w + 1 }),
          });
          if (response.status === 201) acknowledged.set(((await response.json()) as { id: number }).id, name);
        }
      } catch {
        failed++; // in flight when the process died: never acknowledged
      } finally {
        stopped++;
      }
    };
    const workers = Array.from({ length: 8 }, (_, w) => worker(w));
    // Polled, not timed: only the count matters; a worker stops when the server is gone.
    while (acknowledged.size < 400 && stopped < workers.length) await new Promise((r) => setTimeout(r, 5));
    expect(stopped, `all ${workers.length} workers still sending when 400 were acknowledged:\n${first.output()}`).toBe(0);
    first.child.kill('SIGKILL');
    expect(await first.exited).toBe('SIGKILL');
    stop = true;
    await Promise.all(workers);

    const second = await startServiceProcess(databasePath, env, { onSpawn: killAtEnd });
    const stored = new Map<number, string>();
    let url: string | null = `${second.baseUrl}/pets?limit=100`;
    while (url) {
      const response: Response = await fetch(url, { headers: { Authorization: `Bearer ${key}` } });
      for (const pet of (await response.json()) as { id: number; name: string }[]) {
        expect(stored.has(pet.id)).toBe(false);
        stored.set(pet.id, pet.name);
      }
      const next = /<([^>]+)>; rel="next"/.exec(response.headers.get('link') ?? '')?.[1];
      url = next ? new URL(next, second.baseUrl).href : null;
    }
    const lost = [...acknowledged].filter(([id, name]) => stored.get(id) !== name);
    expect(lost).toEqual([]);
    expect(stored.size).toBeGreaterThanOrEqual(acknowledged.size);
    console.log(
      `SIGKILL test on ${name}: ${sent} POSTs sent, ${acknowledged.size} acknowledged, ${failed} cut off, ${stored.size} stored after restart, 0 lost`,
    );
    await second.stop();
  }, 90_000);

  it('finishes an in-flight request on SIGTERM, refuses new connections once it has lingered, and exits 0', async () => {
    const { databasePath, env, key } = await prepare();
    const server = await startServiceProcess(databasePath, env, { onSpawn: killAtEnd });
    const url = new URL(`${server.baseUrl}/pets`);
    const body = JSON.stringify({ name: 'Slowpoke', categoryId: 1 });

    // No timing: each step waits for what the one before it shows.
    const response = new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: 'POST',
          headers: {
            Authorization: `Bearer ${key}`,
            'Content-Type': 'application/json',
            'Content-Length': Buffer.byteLength(body),
            // The server answers 100 Continue once it has the headers: the request is in flight.
            Expect: '100-continue',
          },
        },
        (res) => {
          let text = '';
          res.on('data', (c: Buffer) => (text += c.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        },
      );
      req.on('error', reject);
      req.on('continue', () => {
        // Half the body now, the rest once the service has begun to stop.
        req.write(body.slice(0, 10));
        server.child.kill('SIGTERM');
        // Once new connections are refused (after SHUTDOWN_LINGER_MS, 1 s by default, during
        // which they are answered), the request in flight sends the rest of its body.
        refusedWithin(10_000).then(() => req.end(body.slice(10)), reject);
      });
    });

    /** Resolves once a new connection is refused, trying every 25 ms for up to `ms`. */
    async function refusedWithin(ms: number): Promise<void> {
      for (const until = performance.now() + ms; performance.now() < until;) {
        const refused = await fetch(`${server.origin}/healthz`).then(
          (r) => r.arrayBuffer().then(() => false),
          () => true,
        );
        if (refused) return;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      throw new Error(`new connections were still answered ${ms} ms after SIGTERM`);
    }

    const result = await response;
    expect(result.status).toBe(201);
    expect(JSON.parse(result.body)).toMatchObject({ name: 'Slowpoke' });
    expect(await server.exited).toBe(0);
    expect(server.output()).not.toMatch(/Error/);
  }, 60_000);
});
