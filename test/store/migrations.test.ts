import { describe, expect, it } from 'vitest';
import { MIGRATIONS, type Migration } from '../../src/service/store/migrations.js';
import { pendingMigrations } from '../../src/service/store/pending-migrations.js';

describe('the migrations of both engines', () => {
  it('are one list in version order, each version and name once', () => {
    const versions = MIGRATIONS.map((m) => m.version);
    expect(versions).toEqual([...versions].sort((a, b) => a - b));
    expect(new Set(versions).size).toBe(versions.length);
    expect(new Set(MIGRATIONS.map((m) => m.name)).size).toBe(MIGRATIONS.length);
  });

  it('give each engine its own statements, and skip those it has none for', () => {
    const versions = MIGRATIONS.map((migration) => migration.version);
    expect(pendingMigrations('sqlite', []).map((step) => step.version)).toEqual(versions);
    // Every one but 4, SQLite's own covering index.
    expect(pendingMigrations('postgres', []).map((step) => step.version)).toEqual(versions.filter((version) => version !== 4));
    expect(pendingMigrations('sqlite', [])[0]!.sql).toContain('AUTOINCREMENT');
    expect(pendingMigrations('postgres', [])[0]!.sql).toContain('GENERATED ALWAYS AS IDENTITY');
  });

  describe('pendingMigrations', () => {
    const list: Migration[] = [
      { version: 1, name: 'one', sql: 'CREATE TABLE one (a INTEGER)' },
      { version: 2, name: 'two', sql: { sqlite: 'CREATE INDEX two ON one (a)', postgres: null } },
      { version: 3, name: 'three', sql: { sqlite: 'ALTER TABLE one ADD b TEXT', postgres: 'ALTER TABLE one ADD b JSON' } },
    ];

    it('leaves out what the database has applied, in order', () => {
      expect(pendingMigrations('sqlite', [2], list)).toEqual([
        { version: 1, name: 'one', sql: 'CREATE TABLE one (a INTEGER)' },
        { version: 3, name: 'three', sql: 'ALTER TABLE one ADD b TEXT' },
      ]);
      expect(pendingMigrations('postgres', [1, 3], list)).toEqual([]);
    });

    it('refuses a database with a version this code does not know, saying so', () => {
      expect(() => pendingMigrations('sqlite', [1, 7, 4], list)).toThrow(
        'The database has schema version(s) 4, 7 that this release does not know; it was written by a newer release. Run that release, or a newer one, on it.',
      );
      // A version an engine has no statements for was never applied by it.
      expect(() => pendingMigrations('postgres', [1, 2], list)).toThrow(/schema version\(s\) 2 that this release does not know/);
    });
  });
});
