import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bin, ROOT, run } from '../support/run.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

let server: TestServer;
// The CLI and a running server share one SQLite file, as in production.
const keys = (...args: string[]) =>
  run(bin('tsx'), [`${ROOT}src/service/keys/cli.ts`, ...args], {
    env: { DATABASE_PATH: server.databasePath, ANIMAL_STORE_ENV: 'production' },
  });

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.close());

const keyIn = (stdout: string) => /\n(as_(?:prod|stag)_[0-9A-Za-z]{38})\n/.exec(stdout)?.[1];

describe('npm run keys', () => {
  it('creates a key that works at once, lists it without the key, and revokes it at once', async () => {
    const created = await keys('create', '--plan', 'free', '--name', 'Alice');
    expect(created.code).toBe(0);
    expect(created.stdout).toContain('This is the only time the key is shown');
    const key = keyIn(created.stdout)!;
    expect(key).toBeDefined();
    const id = /Created key (key_[0-9a-f]+)/.exec(created.stdout)![1]!;

    const ok = await fetch(`${server.baseUrl}/pets`, { headers: { Authorization: `Bearer ${key}` } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('x-ratelimit-limit')).toBe('60');

    const listed = await keys('list');
    expect(listed.stdout).toMatch(new RegExp(`${id}\\s+Alice\\s+free\\s+60/min 1000/day\\s+production\\s+${key.slice(0, 12)}…`));
    expect(listed.stdout).not.toContain(key);
    const json = await keys('list', '--json');
    expect(json.stdout).not.toContain(key);
    expect(
      JSON.parse(
        json.stdout
          .trim()
          .split('\n')
          .find((l) => l.includes(id))!,
      ),
    ).not.toHaveProperty('hash');

    const revoked = await keys('revoke', id);
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toContain(`Revoked key ${id}`);
    const refused = await fetch(`${server.baseUrl}/pets`, { headers: { Authorization: `Bearer ${key}` } });
    expect(refused.status).toBe(401);
    expect((await keys('revoke', id)).stdout).toContain('already revoked');
  });

  it('issues Enterprise keys with their own limits, and staging keys', async () => {
    const created = await keys('create', '--plan', 'enterprise', '--name', 'Big', '--per-minute', '2', '--per-day', '10');
    const key = keyIn(created.stdout)!;
    const response = await fetch(`${server.baseUrl}/pets`, { headers: { Authorization: `Bearer ${key}` } });
    expect(response.headers.get('x-ratelimit-limit')).toBe('2');
    const staging = await keys('create', '--plan', 'pro', '--name', 'S', '--env', 'staging');
    expect(keyIn(staging.stdout)).toMatch(/^as_stag_/);
  });

  it.each([
    [['create', '--name', 'x'], '--plan must be one of free, pro, business, enterprise'],
    [['create', '--plan', 'gold', '--name', 'x'], '--plan must be one of free, pro, business, enterprise, got "gold"'],
    [['create', '--plan', 'free'], '--name is required'],
    [['create', '--plan', 'enterprise', '--name', 'x'], 'an enterprise key needs --per-minute and --per-day'],
    [['create', '--plan', 'free', '--name', 'x', '--per-minute', '5'], 'are for enterprise keys'],
    [
      ['create', '--plan', 'enterprise', '--name', 'x', '--per-minute', '0', '--per-day', '5'],
      '--per-minute must be a whole number of at least 1, got "0"',
    ],
    [
      ['create', '--plan', 'enterprise', '--name', 'x', '--per-minute', '10', '--per-day', '5'],
      '--per-minute cannot be larger than --per-day',
    ],
    [['create', '--plan', 'free', '--name', '   '], '--name must be 1 to 200 characters'],
    [['create', '--plan', 'free', '--name', 'x'.repeat(201)], '--name must be 1 to 200 characters'],
    [['create', '--plan', 'free', '--name', 'x', '--env', 'dev'], '--env must be production or staging'],
    [['revoke'], 'revoke takes exactly one key id'],
    [['rotate'], 'Unknown command "rotate"'],
  ])('refuses %j with a clear message', async (args, message) => {
    const result = await keys(...args);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
  });

  it('refuses control characters in a name, and shows those of a name stored before escaped', async () => {
    const refused = await keys('create', '--plan', 'free', '--name', 'Eve\nkey_000000000000  Mallory');
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--name may not hold control characters');
    // A name written by an older release, or into the database by hand.
    const forged = 'Eve\u001b]0;pwned\u0007\r\nkey_000000000000  Mallory\u009b2J';
    await server.store.insertKey({
      id: 'key_0123456789ab',
      name: forged,
      plan: 'free',
      perMinute: null,
      perDay: null,
      environment: 'production',
      hash: 'f'.repeat(64),
      displayPrefix: 'as_prod_0000',
      createdAt: new Date().toISOString(),
      revokedAt: null,
    });
    const shown = 'Eve\\u001b]0;pwned\\u0007\\u000d\\u000akey_000000000000  Mallory\\u009b2J';
    for (const args of [['list'], ['list', '--json'], ['revoke', 'key_0123456789ab']]) {
      const { stdout } = await keys(...args);
      // Line ends are the CLI's own; no other control character reaches the terminal.
      expect(stdout.replaceAll('\n', ''), args.join(' ')).not.toMatch(/\p{Cc}/u);
      const lines = stdout.split('\n').filter((line) => line.includes('Mallory'));
      expect(lines, args.join(' ')).toHaveLength(1);
      // JSON keeps its own escapes (\r, \n) and the value it had.
      if (args[1] === '--json') expect((JSON.parse(lines[0]!) as { name: string }).name).toBe(forged);
      else expect(lines[0], args.join(' ')).toContain(shown);
    }
  });

  it('says so when revoking an unknown id', async () => {
    const result = await keys('revoke', 'key_nope');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('No key with id key_nope');
  });

  it('has help for every command', async () => {
    for (const args of [['--help'], ['create', '--help'], ['list', '--help'], ['revoke', '--help']]) {
      const result = await keys(...args);
      expect(result.code, args.join(' ')).toBe(0);
      expect(result.stdout, args.join(' ')).toMatch(/^Usage: npm run keys/);
    }
  });
});
