import { join } from 'node:path';
import { issueKey } from '../../src/service/keys/issue-key.js';
import { PostgresStore } from '../../src/service/store/postgres/postgres-store.js';
import { keyInFile } from './key-in-file.js';
import { postgresEnabled, urlWithNewSchema } from './services.js';

/** A store for service processes (scripts/support/server-process.ts), and a key issued into it before they start. */
export interface ProcessStore {
  databasePath: string;
  env: Record<string, string>;
  key: string;
}

/** An engine a process test runs on, and how to make a fresh store of it. */
export interface ProcessEngine {
  name: string;
  enabled: boolean;
  prepare: () => Promise<ProcessStore>;
}

/**
 * Both engines for tests that start the service as processes of their own: a new SQLite file in
 * `dir`, or a new PostgreSQL schema (dropped by dropTestSchemas), each with a high-limit key.
 */
export function processEngines(dir: string, label: string): ProcessEngine[] {
  return [
    {
      name: 'SQLite',
      enabled: true,
      prepare: async () => {
        const databasePath = join(dir, `${label}-${Date.now()}.db`);
        return { databasePath, env: {}, key: await keyInFile(databasePath) };
      },
    },
    {
      name: 'PostgreSQL',
      enabled: postgresEnabled(),
      prepare: async () => {
        const url = await urlWithNewSchema();
        const store = await PostgresStore.open({ url });
        try {
          const { key } = await issueKey(
            store,
            { name: 'process test', plan: 'enterprise', environment: 'production', perMinute: 100_000, perDay: 1_000_000 },
            new Date(),
          );
          return { databasePath: '', env: { DATABASE_URL: url }, key };
        } finally {
          await store.close();
        }
      },
    },
  ];
}
