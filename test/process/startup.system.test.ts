import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/shared/free-port.js';
import { keyInFile } from '../support/key-in-file.js';
import { killAtEnd, outputOf } from '../support/processes.js';
import { exchange } from '../support/raw-http.js';
import { ROOT } from '../support/run.js';
import { basePathsOf } from 'contract-kit';
import { loadSpec, type OpenApiDocument } from '../../src/contract/load-spec.js';
import { previousVersions, sunsetNote } from '../../src/contract/released-contracts.js';
import { PostgresStore } from '../../src/service/store/postgres/postgres-store.js';
import {
  dropTestSchemas,
  newRedisPrefix,
  postgresEnabled,
  redisEnabled,
  TEST_DATABASE_URL,
  TEST_REDIS_URL,
  urlWithNewSchema,
} from '../support/services.js';
import { startTcpProxy } from '../../scripts/support/tcp-proxy.js';

// Start-up as an operator meets it: production writes JSON lines only; a
// PostgreSQL or Redis that is not up yet is waited for, then given up with one line and exit 1.

const dir = mkdtempSync(join(tmpdir(), 'animal-store-startup-'));
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await dropTestSchemas();
});

/** Runs the service (from the sources) with `env`: its process, its exit, and its output as it comes. */
function service(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'src', 'service', 'main.ts')], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      NODE_ENV: 'production',
      LOG_LEVEL: 'info',
      DATABASE_PATH: join(dir, 'store.db'),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  killAtEnd(child);
  const output = outputOf(child);
  /** The port of the listening line. */
  const port = async () => Number((await output.written(/"port":(\d+)[^\n]*"msg":"listening"/))[1]);
  return { child, port, ...output };
}

const jsonLines = (text: string) =>
  text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as { msg: string; level: number });

describe('start-up', () => {
  it('writes only JSON lines in production, and nothing to stderr', async () => {
    const key = await keyInFile(join(dir, 'store.db'));
    const run = service({});
    const port = await run.port();
    // Ready once every operation's validator is compiled, in the background after listening.
    await run.written(/"msg":"validators ready"/);
    expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
    // Refused by the HTTP server while the app still checks its key: the app's steps that go on
    // after the answer (they set headers) must not end in Express's stack trace on stderr.
    const broken = `POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n`;
    const outcome = await exchange(`http://127.0.0.1:${port}`, [Buffer.from(broken)]);
    expect(outcome.kind === 'response' && outcome.response.status).toBe(400);
    expect((await fetch(`http://127.0.0.1:${port}/v1/pets`, { headers: { Authorization: `Bearer ${key}` } })).status).toBe(200);
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
    const lines = jsonLines(run.stdout());
    expect(lines.map((l) => l.msg)).toEqual(expect.arrayContaining(['listening', 'validators ready', 'stopped']));
    expect(run.stderr()).toBe('');
  }, 60_000);

  it('says, outside production, what it serves: its NODE_ENV, each version, the keys it takes and the server of the contract they are for', async () => {
    const contract = loadSpec();
    const servers = contract.servers ?? [];
    const at = (port: number, doc: OpenApiDocument) => `http://localhost:${port}${basePathsOf(doc)[0]}`;
    // Earlier majors served beside it (contracts/released), each with its end.
    const earlier = (port: number) =>
      previousVersions().map(({ label, doc }) => `  and ${doc.info.version} at ${at(port, doc)} (${label}${sunsetNote(doc, Date.now())})`);
    for (const [environment, prefix] of [
      ['production', 'as_prod_'],
      ['staging', 'as_stag_'],
    ] as const) {
      const server = servers.find((s) => s.description?.toLowerCase() === environment)!.url;
      const run = service({ NODE_ENV: 'development', ANIMAL_STORE_ENV: environment, DATABASE_PATH: join(dir, `banner-${environment}.db`) });
      try {
        const port = await run.port();
        // The banner follows the listening line; up to 15 s for it on a loaded machine.
        // (Its last line, not the log line, which holds "limits in memory" too.)
        for (let i = 0; i < 300 && !/^ {2}SQLite at .*, limits in memory$/m.test(run.stdout()); i++)
          await new Promise((resolve) => setTimeout(resolve, 50));
        const banner = run
          .stdout()
          .split('\n')
          .filter((line) => line !== '' && !line.startsWith('{'))
          .slice(0, 3 + earlier(port).length);
        expect(banner).toEqual([
          `${contract.info.title} ${contract.info.version} at ${at(port, contract)} (NODE_ENV=development)`,
          ...earlier(port),
          `  takes ${environment} keys only (${prefix}…, ANIMAL_STORE_ENV): the keys of ${server}`,
          `  SQLite at ${join(dir, `banner-${environment}.db`)}, limits in memory`,
        ]);
      } finally {
        run.child.kill('SIGTERM');
        await run.exited;
      }
    }
  }, 60_000);

  it('gives up on a PostgreSQL that never answers with one line and exit 1, after trying again', async () => {
    const port = await freePort();
    // 5 s: tries at 0, 0.25, 0.75, 1.75 and 3.75 s, each refused at once; two retries need the
    // first three, so a machine could be 3 s late and still give them.
    const run = service({ DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/test`, STARTUP_TIMEOUT_MS: '5000' });
    expect(await run.exited).toBe(1);
    expect(run.stderr()).toMatch(
      new RegExp(
        `^The service failed to start: PostgreSQL at 127\\.0\\.0\\.1:${port}/test did not answer within 5 s \\(STARTUP_TIMEOUT_MS\\): .+\\n$`,
      ),
    );
    const retries = jsonLines(run.stdout()).filter((l) => /does not answer yet/.test(l.msg));
    expect(retries.length).toBeGreaterThanOrEqual(2);
  }, 60_000);

  it('gives up on a Redis that never answers with one line and exit 1', async () => {
    const port = await freePort();
    const run = service({ REDIS_URL: `redis://127.0.0.1:${port}`, STARTUP_TIMEOUT_MS: '1000' });
    expect(await run.exited).toBe(1);
    expect(run.stderr()).toMatch(
      new RegExp(
        `^The service failed to start: Redis at 127\\.0\\.0\\.1:${port} did not answer within 1 s \\(STARTUP_TIMEOUT_MS\\): .+\\n$`,
      ),
    );
  }, 60_000);

  it.runIf(postgresEnabled())(
    'does not wait for what no wait can fix: an unknown PostgreSQL user',
    async () => {
      const url = new URL(TEST_DATABASE_URL);
      url.username = 'no_such_user_here';
      const run = service({ DATABASE_URL: url.href, STARTUP_TIMEOUT_MS: '20000' });
      expect(await run.exited).toBe(1);
      expect(run.stderr()).toMatch(/^The service failed to start: PostgreSQL at .* refused the connection: .*no_such_user_here.*\n$/);
      // Given up at the first answer: not one retry, although STARTUP_TIMEOUT_MS allows 20 s of them.
      expect(run.stdout()).not.toMatch(/does not answer yet/);
    },
    60_000,
  );

  it.runIf(postgresEnabled())(
    'does not wait for what no wait can fix: a database written by a newer release',
    async () => {
      const url = await urlWithNewSchema();
      await (await PostgresStore.open({ url })).close();
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await client.query(`INSERT INTO schema_migrations (version, name) VALUES (999, 'future')`);
      await client.end();
      const run = service({ DATABASE_URL: url, STARTUP_TIMEOUT_MS: '20000' });
      expect(await run.exited).toBe(1);
      expect(run.stderr()).toMatch(
        /^The service failed to start: PostgreSQL at .*: The database has schema version\(s\) 999 that this release does not know; it was written by a newer release\. Run that release, or a newer one, on it\.\n$/,
      );
      // Given up at the first answer: not one retry, although STARTUP_TIMEOUT_MS allows 20 s of them.
      expect(run.stdout()).not.toMatch(/does not answer yet/);
    },
    60_000,
  );

  it.runIf(postgresEnabled())(
    'stops at once on SIGTERM while it waits for PostgreSQL',
    async () => {
      const port = await freePort();
      const run = service({ DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/test`, STARTUP_TIMEOUT_MS: '30000' });
      await run.written(/does not answer yet/);
      run.child.kill('SIGTERM');
      expect(await run.exited).toBe(0);
      expect(jsonLines(run.stdout()).some((l) => l.msg === 'stopped before it started')).toBe(true);
    },
    60_000,
  );

  it.runIf(redisEnabled())(
    'does not warn about a Redis that is only connecting',
    async () => {
      const redisKeys = newRedisPrefix();
      const run = service({ REDIS_URL: TEST_REDIS_URL, REDIS_KEY_PREFIX: redisKeys.prefix });
      try {
        await run.port();
        expect(run.stdout()).not.toMatch(/Redis does not answer yet/);
        run.child.kill('SIGTERM');
        expect(await run.exited).toBe(0);
      } finally {
        await redisKeys.cleanup();
      }
    },
    60_000,
  );

  it.runIf(postgresEnabled())(
    'waits for a PostgreSQL that comes up during the wait, then serves',
    async () => {
      const target = new URL(TEST_DATABASE_URL);
      const proxy = await startTcpProxy(target.hostname, Number(target.port || 5432));
      proxy.setMode('refuse');
      // A schema of its own, as its neighbours: the public one may hold what another checkout recorded.
      const url = new URL(await urlWithNewSchema());
      url.hostname = '127.0.0.1';
      url.port = String(proxy.port);
      // 20 s to wait: the next try after the proxy forwards comes within 0.5 s.
      const run = service({ DATABASE_URL: url.href, STARTUP_TIMEOUT_MS: '20000' });
      try {
        // Up once the service has been refused and said it tries again.
        await run.written(/does not answer yet/);
        proxy.setMode('forward');
        const port = await run.port();
        await run.written(/"msg":"validators ready"/);
        expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
        expect(jsonLines(run.stdout()).some((l) => /does not answer yet/.test(l.msg))).toBe(true);
        run.child.kill('SIGTERM');
        expect(await run.exited).toBe(0);
      } finally {
        await proxy.close();
      }
    },
    60_000,
  );
});
