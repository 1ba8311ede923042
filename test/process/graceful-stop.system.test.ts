import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startServiceProcess, type ServiceProcess } from '../../scripts/support/server-process.js';
import { SqliteStore } from '../../src/service/store/sqlite/sqlite-store.js';
import { keyInFile } from '../support/key-in-file.js';
import { BASE_PATH } from '../support/base-path.js';

// A stop must answer every request a client sent on a connection that was open: a keep-alive
// client cannot tell a request the service never read from one it carried out, so a request
// dropped unanswered is a request it may repeat or lose. Each one here is answered (carried
// out, or refused with a status a client may retry on) and the store agrees with the answers.

const dir = mkdtempSync(join(tmpdir(), 'animal-store-graceful-stop-'));
const services: ServiceProcess[] = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  for (const service of services.splice(0)) {
    service.child.kill('SIGKILL');
    await service.exited;
  }
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A response read off the socket: its status and headers (names lower-cased). */
interface Answer {
  status: number;
  headers: Map<string, string>;
  body: string;
}

/** A kept-alive connection of the test's own, read byte for byte. */
class Connection {
  private received = Buffer.alloc(0);
  private ended: string | null = null;
  private waiting = () => {};

  constructor(readonly socket: Socket) {
    sockets.push(socket);
    socket.on('data', (chunk: Buffer) => {
      this.received = Buffer.concat([this.received, chunk]);
      this.waiting();
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      this.ended ??= error.code ?? error.message;
      this.waiting();
    });
    socket.on('close', () => {
      this.ended ??= 'EOF';
      this.waiting();
    });
  }

  static open(port: number): Promise<Connection> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => resolve(new Connection(socket)));
      socket.once('error', reject);
    });
  }

  /** The next complete response (every response of the service has Content-Length), or how the connection ended without one. */
  next(): Promise<Answer | string> {
    return new Promise((resolve) => {
      this.waiting = () => {
        const end = this.received.indexOf('\r\n\r\n');
        if (end >= 0) {
          const [statusLine, ...lines] = this.received.subarray(0, end).toString('latin1').split('\r\n');
          const headers = new Map(
            lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
          );
          const length = Number(headers.get('content-length') ?? 0);
          if (this.received.length >= end + 4 + length) {
            const body = this.received.subarray(end + 4, end + 4 + length).toString('utf8');
            this.received = this.received.subarray(end + 4 + length);
            return resolve({ status: Number(statusLine!.slice(9, 12)), headers, body });
          }
        }
        if (this.ended) resolve(this.ended);
      };
      this.waiting();
    });
  }

  send(method: string, path: string, key: string, body?: string): void {
    const head = [`${method} ${path} HTTP/1.1`, 'Host: localhost', `Authorization: Bearer ${key}`];
    if (body !== undefined) head.push('Content-Type: application/json', `Content-Length: ${Buffer.byteLength(body)}`);
    this.socket.write(`${head.join('\r\n')}\r\n\r\n${body ?? ''}`);
  }
}

/** Every animal in the SQLite file, by name (the service has exited). */
async function storedNames(databasePath: string): Promise<Set<string>> {
  const store = SqliteStore.open(databasePath);
  try {
    const names = new Set<string>();
    let afterId = 0;
    for (;;) {
      const page = await store.listPets({ limit: 500, afterId });
      if (page.length === 0) return names;
      for (const pet of page) names.add(pet.name);
      afterId = page.at(-1)!.id;
    }
  } finally {
    await store.close();
  }
}

describe('the service process on SIGTERM', () => {
  it('answers every request sent on its open keep-alive connections as the signal comes, and stores exactly the animals it answered 201', async () => {
    const databasePath = join(dir, 'drain.db');
    const key = await keyInFile(databasePath);
    // SHUTDOWN_LINGER_MS is the margin for the requests sent once the service says it is
    // stopping (below): 5 s, against the few milliseconds its log line takes to come here on a
    // busy machine. The stop does not wait it out: once answered, the test closes its connections.
    const service = await startServiceProcess(databasePath, { SHUTDOWN_LINGER_MS: '5000' });
    services.push(service);

    // 50 connections, each kept alive after a first answer: what a pool of clients holds.
    const connections: Connection[] = [];
    for (let i = 0; i < 50; i++) {
      const connection = await Connection.open(service.port);
      connection.send('GET', `${BASE_PATH}/pets?limit=1`, key);
      expect(await connection.next()).toMatchObject({ status: 200 });
      connections.push(connection);
    }

    // A POST on each: 20 just before the signal, 20 just after it, 10 once the service has
    // logged that it is stopping (so surely after the stop began).
    const answers: Promise<Answer | string>[] = [];
    const post = (from: number, to: number) => {
      for (let i = from; i < to; i++) {
        answers.push(connections[i]!.next());
        connections[i]!.send('POST', `${BASE_PATH}/pets`, key, JSON.stringify({ name: `drain ${i}`, categoryId: 1 }));
      }
    };
    const stopping = new Promise<void>((resolve) =>
      service.child.stdout!.on('data', () => service.output().includes('shutting down') && resolve()),
    );
    post(0, 20);
    service.child.kill('SIGTERM');
    post(20, 40);
    await stopping;
    post(40, 50);

    const outcomes = await Promise.all(answers);
    for (const connection of connections) connection.socket.end();
    const unanswered = outcomes.map((o, i) => [i, o] as const).filter(([, o]) => typeof o === 'string');
    expect(unanswered, 'requests that got no response, by connection: the reset or EOF they got').toEqual([]);
    const answered = outcomes as Answer[];
    for (const answer of answered) {
      if (answer.status === 201) continue;
      // A refusal is one a client may retry on: 503 with Retry-After and the Error body, and the connection closed.
      expect(answer.status).toBe(503);
      expect(answer.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(answer.headers.get('connection')).toBe('close');
      expect(JSON.parse(answer.body)).toMatchObject({ code: 'service_unavailable', status: 503 });
    }
    // Those sent after the signal close their connection once answered.
    for (const answer of answered.slice(40)) expect(answer.headers.get('connection')).toBe('close');

    expect(await service.exited).toBe(0);
    const stored = await storedNames(databasePath);
    const created = answered.flatMap((a, i) => (a.status === 201 ? [`drain ${i}`] : []));
    const refused = answered.flatMap((a, i) => (a.status === 201 ? [] : [`drain ${i}`]));
    expect(
      created.filter((name) => !stored.has(name)),
      'answered 201 but not stored',
    ).toEqual([]);
    expect(
      refused.filter((name) => stored.has(name)),
      'refused but stored',
    ).toEqual([]);
    console.log(`SIGTERM with 50 requests on kept-alive connections: ${created.length} created, ${refused.length} refused, 0 unanswered`);
  }, 60_000);

  it('while it lingers, answers new connections too, with /readyz 503, and stops once the last connection is closed', async () => {
    const databasePath = join(dir, 'linger.db');
    const key = await keyInFile(databasePath);
    // A linger far longer than the test may take: only the last connection closing ends it.
    const service = await startServiceProcess(databasePath, { SHUTDOWN_LINGER_MS: '600000', SHUTDOWN_TIMEOUT_MS: '600000' });
    services.push(service);
    const held = await Connection.open(service.port);
    held.send('GET', `${BASE_PATH}/pets?limit=1`, key);
    expect(await held.next()).toMatchObject({ status: 200 });
    const stopping = new Promise<void>((resolve) =>
      service.child.stdout!.on('data', () => service.output().includes('shutting down') && resolve()),
    );
    service.child.kill('SIGTERM');
    await stopping;

    const prober = await Connection.open(service.port);
    prober.send('GET', '/readyz', key);
    const readiness = await prober.next();
    expect(readiness).toMatchObject({ status: 503 });
    expect((readiness as Answer).headers.get('connection')).toBe('close');
    held.send('GET', `${BASE_PATH}/pets?limit=1`, key);
    const last = await held.next();
    expect(last).toMatchObject({ status: 200 });
    expect((last as Answer).headers.get('connection')).toBe('close');
    expect(await service.exited).toBe(0);
  }, 60_000);

  it('stops at once when no connection is open, whatever its linger', async () => {
    const databasePath = join(dir, 'idle.db');
    await keyInFile(databasePath);
    const service = await startServiceProcess(databasePath, { SHUTDOWN_LINGER_MS: '600000', SHUTDOWN_TIMEOUT_MS: '600000' });
    services.push(service);
    service.child.kill('SIGTERM');
    expect(await service.exited).toBe(0);
    expect(service.output()).toContain('"msg":"stopped"');
  }, 60_000);
});
