// The SQLite file backed up as docs/operators.md says, from another process while the service
// runs and adds animals: the copy is consistent, holds every animal acknowledged before the
// backup began, and a service started on it serves them.
import Database from 'better-sqlite3';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteStore } from '../../src/service/store/sqlite/sqlite-store.js';
import { ROOT, run } from '../support/run.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** The backup command of docs/operators.md, as written there. */
function documentedCommand(): string {
  const guide = readFileSync(join(ROOT, 'docs', 'operators.md'), 'utf8');
  const command = /^node -e "(require\('better-sqlite3'\)[^"]+)" \S+ \S+$/m.exec(guide)?.[1];
  if (!command) throw new Error('docs/operators.md has no backup command of the form node -e "require(\'better-sqlite3\')…" FILE COPY');
  return command;
}

describe('a backup of the SQLite file', () => {
  it('is taken by the command of operators.md while the service adds animals, and serves them', async () => {
    const server = await startTestServer();
    servers.push(server);
    const client = server.client(await server.newKey('business'));
    const add = async (name: string) => (await client.POST('/pets', { body: { name, categoryId: 1 } })).data!.id;
    const before: number[] = [];
    for (let i = 0; i < 50; i++) before.push(await add(`Before ${i}`));

    // Animals keep arriving while the backup runs.
    let adding = true;
    const during = (async () => {
      let n = 0;
      while (adding) await add(`During ${n++}`);
      return n;
    })();
    const copy = join(server.databasePath, '..', 'backup.db');
    const backup = await run(process.execPath, ['-e', documentedCommand(), server.databasePath, copy], { cwd: ROOT });
    adding = false;
    expect(await during).toBeGreaterThan(0);
    expect(backup.stderr).toBe('');
    expect(backup.code).toBe(0);

    const db = new Database(copy, { readonly: true });
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    const ids = new Set(db.prepare('SELECT id FROM pets').pluck().all() as number[]);
    db.close();
    for (const id of before) expect(ids.has(id), `animal ${id}, acknowledged before the backup`).toBe(true);

    const restored = await startTestServer({ store: SqliteStore.open(copy) });
    servers.push(restored);
    const { data: page } = await restored.client(await restored.newKey('pro')).GET('/pets', { params: { query: { limit: 100 } } });
    expect(page?.slice(0, 50).map((pet) => pet.id)).toEqual(before);
  });
});
