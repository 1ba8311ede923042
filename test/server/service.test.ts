import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { handlers } from '../../generated/handlers.js';
import { issueKey } from '../../src/service/keys/issue-key.js';
import { RateLimiter } from '../../src/service/limits/limiter.js';
import { memoryCounters } from '../../src/service/limits/memory-counters.js';
import { startService } from '../../src/service/start-service.js';
import { SqliteStore } from '../../src/service/store/sqlite/sqlite-store.js';
import { FakeClock } from '../support/fake-clock.js';
import { anonymousLimitsOf, banPolicyOf } from '../../src/service/config/load-config.js';
import { defaultConfig } from '../../src/service/config/settings.js';
import { BASE_PATH } from '../support/base-path.js';

/**
 * startService is how every entry point starts and stops the service (main, the sandbox, the
 * tests): its stop lingers, answering, then refuses new connections, finishes the requests in
 * flight, and closes what the service holds; a second, shorter stop cuts the wait.
 */
const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/**
 * A service whose GET /pets waits, once it has the request (`entered`), until the test lets it
 * answer (`release`): no timing decides what is in flight.
 */
async function slowService(closed: string[], shutdownTimeoutMs: number, port = 0, shutdownLingerMs = 200) {
  const dir = mkdtempSync(join(tmpdir(), 'animal-store-service-'));
  dirs.push(dir);
  const store = SqliteStore.open(join(dir, 'store.db'));
  const clock = new FakeClock();
  const { key } = await issueKey(store, { name: 'test', plan: 'pro', environment: 'production' }, new Date(clock.now()));
  let enter = () => {};
  const entered = new Promise<void>((resolve) => (enter = resolve));
  let release = () => {};
  const released = new Promise<void>((resolve) => (release = resolve));
  const service = await startService({
    store,
    limiter: new RateLimiter(memoryCounters(), clock, banPolicyOf(defaultConfig())),
    clock,
    logger: pino({ level: 'silent' }),
    environment: 'production',
    anonymousLimits: anonymousLimitsOf(defaultConfig()),
    handlers: {
      ...handlers,
      listPets: async (input, context) => {
        enter();
        await released;
        return handlers.listPets(input, context);
      },
    },
    port,
    host: '127.0.0.1',
    shutdownTimeoutMs,
    shutdownLingerMs,
    alsoClose: [() => void closed.push('first'), () => void closed.push('second')],
  }).catch(async (error: unknown) => {
    // A service that could not listen closes nothing: the store is the test's to close.
    await store.close();
    throw error;
  });
  const get = () => fetch(`${service.origin}${BASE_PATH}/pets`, { headers: { Authorization: `Bearer ${key}` } });
  return { service, get, store, entered, release };
}

describe('startService and its stop', () => {
  it('finishes a request in flight, answers while it lingers, then refuses new connections and closes the store and what it was given, in order', async () => {
    const closed: string[] = [];
    // A linger of 1 s: the request sent while it lingers must connect within it, on a loaded machine too.
    const { service, get, store, entered, release } = await slowService(closed, 5_000, 0, 1_000);
    expect(service.origin).toBe(`http://localhost:${service.port}`);
    const inFlight = get();
    await entered;
    const stopping = service.stop();
    const whileLingering = get();
    // Past the linger: its timer was set before this one, so it has fired, and the server has
    // stopped listening (both timers run in this process, in the order they expire).
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    await expect(get()).rejects.toThrow();
    expect(closed, 'nothing closed while a request is in flight').toEqual([]);
    release();
    for (const answered of await Promise.all([inFlight, whileLingering])) {
      expect(answered.status).toBe(200);
      expect(answered.headers.get('connection')).toBe('close');
    }
    await stopping;
    expect(closed).toEqual(['first', 'second']);
    await expect(store.ping()).rejects.toThrow(/destroyed/);
    // Stopping again is the same stop.
    await service.stop();
    expect(closed).toEqual(['first', 'second']);
  });

  it('cuts the grace period when stopped again with a shorter one (a second Ctrl+C)', async () => {
    const closed: string[] = [];
    // A grace far beyond the test's timeout, and a request never let go: only the second stop
    // can end the first.
    const { service, get, entered } = await slowService(closed, 600_000);
    const inFlight = get().then(
      (response) => `answered ${response.status}`,
      () => 'connection closed',
    );
    await entered;
    const stopping = service.stop();
    await service.stop({ graceMs: 0 });
    await stopping;
    expect(await inFlight).toBe('connection closed');
    expect(closed).toEqual(['first', 'second']);
  });

  it('accepts a burst of new connections several in one turn of the event loop', async () => {
    const { service } = await slowService([], 5_000);
    let turn = 0;
    let counting = true;
    const tick = () => {
      turn++;
      if (counting) setImmediate(tick);
    };
    setImmediate(tick);
    const turns: number[] = [];
    const sockets: Socket[] = [];
    const all = new Promise<void>((resolve) =>
      service.server.on('connection', () => {
        turns.push(turn);
        if (turns.length === 32) resolve();
      }),
    );
    for (let i = 0; i < 32; i++) sockets.push(connect(service.port, '127.0.0.1').on('error', () => {}));
    await all;
    counting = false;
    sockets.forEach((socket) => socket.destroy());
    await service.stop();
    const perTurn = new Map<number, number>();
    for (const t of turns) perTurn.set(t, (perTurn.get(t) ?? 0) + 1);
    // One listening socket accepts one connection a turn: 32 turns for 32 connections.
    expect(Math.max(...perTurn.values())).toBeGreaterThan(1);
    expect(perTurn.size).toBeLessThan(32);
  });

  it('refuses to listen on a port another service listens on, though it shares the port with its own sockets', async () => {
    const first = await slowService([], 5_000);
    await expect(slowService([], 5_000, first.service.port)).rejects.toMatchObject({ code: 'EADDRINUSE' });
    first.release();
    expect((await first.get()).status).toBe(200);
    await first.service.stop();
  });
});
