import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startServiceProcess } from '../../scripts/support/server-process.js';
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
    const first = await startServiceProcess(databasePath, env);
    const acknowledged = new Map<number, string>();
    let sent = 0;
    let failed = 0;
    let stop = false;
    const worker = async (w: number) => {
      for (let i = 0; !stop; i++) {
        const name = `w${w}-${i}`;
        sent++;
        try {
          const response = await fetch(`${first.baseUrl}/pets`, {
            method: 'POST',
            headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
            body: JSON.stringify({ name, categoryId: w + 1 }),
          });
          if (response.status === 201) acknowledged.set(((await response.json()) as { id: number }).id, name);
        } catch {
          failed++; // in flight when the process died: never acknowledged
          return;
        }
      }
    };
    const workers = Array.from({ length: 8 }, (_, w) => worker(w));
    while (acknowledged.size < 400) await new Promise((r) => setTimeout(r, 5));
    first.child.kill('SIGKILL');
    expect(await first.exited).toBe('SIGKILL');
    stop = true;
    await Promise.all(workers);

    const second = await startServiceProcess(databasePath, env);
    try {
      const stored = new Map<number, string>();
      let url: string | null = `${second.baseUrl}/pets?limit=100`;
      while (url) {
        const response: Response = await fetch(url, { headers: { Authorization: `Bearer ${key}` } });
        for (const pet of (await response.json()) as { id: number; name: string }[]) {
          expect(stored.has(pet.id)).toBe(false);
          stored.set(pet.id, pet.name);
        }
        const next = /<\/v1([^>]+)>; rel="next"/.exec(response.headers.get('link') ?? '')?.[1];
        url = next ? `${second.baseUrl}${next}` : null;
      }
      const lost = [...acknowledged].filter(([id, name]) => stored.get(id) !== name);
      expect(lost).toEqual([]);
      expect(stored.size).toBeGreaterThanOrEqual(acknowledged.size);
      console.log(
        `SIGKILL test on ${name}: ${sent} POSTs sent, ${acknowledged.size} acknowledged, ${failed} cut off, ${stored.size} stored after restart, 0 lost`,
      );
    } finally {
      second.child.kill('SIGTERM');
      await second.exited;
    }
  }, 90_000);

  it('finishes an in-flight request on SIGTERM, refuses new ones, and exits 0', async () => {
    const { databasePath, env, key } = await prepare();
    const server = await startServiceProcess(databasePath, env);
    const url = new URL(`${server.baseUrl}/pets`);
    const body = JSON.stringify({ name: 'Slowpoke', categoryId: 1 });

    const response = new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: 'POST',
          headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) },
        },
        (res) => {
          let text = '';
          res.on('data', (c: Buffer) => (text += c.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        },
      );
      req.on('error', reject);
      // Half the body now, the rest after the signal: the request is in flight when it comes.
      req.write(body.slice(0, 10));
      setTimeout(() => {
        server.child.kill('SIGTERM');
        // A new connection is refused; then the request in flight sends the rest of its body.
        setTimeout(() => {
          expect(fetch(`${server.baseUrl}/pets`, { headers: { Authorization: `Bearer ${key}` } }))
            .rejects.toThrow()
            .then(() => req.end(body.slice(10)), reject);
        }, 300);
      }, 300);
    });

    const result = await response;
    expect(result.status).toBe(201);
    expect(JSON.parse(result.body)).toMatchObject({ name: 'Slowpoke' });
    expect(await server.exited).toBe(0);
    expect(server.output()).not.toMatch(/Error/);
  }, 60_000);
});
