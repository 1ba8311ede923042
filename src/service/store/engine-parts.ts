import type { Kysely } from 'kysely';
import type { ReadCaches } from './read-cache.js';
import type { Engine } from './records.js';
import type { Tables } from './tables.js';

/** What an engine gives the store (sqlite/sqlite-store.ts, postgres/postgres-store.ts): every other difference stays there. */
export interface EngineParts {
  readonly engine: Engine;
  /** Kysely on the engine's driver; its failures to reach or write the database reject with StoreUnavailableError. */
  readonly db: Kysely<Tables>;
  /** Caches for reads that only this process writes (SQLite); none where other instances write (PostgreSQL). */
  readonly caches?: ReadCaches;
  /** Rejects when the engine cannot serve beyond answering a query (SQLite: after a write the disk refused, or no room left). */
  readonly checkReady?: () => Promise<void>;
  /** Runs before the connections close (SQLite: lets statements already started finish). */
  readonly beforeClose?: () => Promise<void>;
}
