import { issueKey } from '../../src/service/keys/issue-key.js';
import { SqliteStore } from '../../src/service/store/sqlite/sqlite-store.js';

/**
 * Issues a high-limit key straight into the database file, before the service starts on it in a
 * process of its own (scripts/support/server-process.ts).
 */
export async function keyInFile(databasePath: string): Promise<string> {
  const store = SqliteStore.open(databasePath);
  try {
    return (
      await issueKey(
        store,
        { name: 'process test', plan: 'enterprise', environment: 'production', perMinute: 100_000, perDay: 1_000_000 },
        new Date(),
      )
    ).key;
  } finally {
    await store.close();
  }
}
