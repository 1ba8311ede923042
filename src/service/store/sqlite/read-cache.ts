import type Database from 'better-sqlite3';

/**
 * How long a reading of `PRAGMA data_version` is trusted, in milliseconds. Reading it costs a
 * read transaction (about a tenth of a cached GET's time when done for every lookup); under load
 * many lookups share one reading instead. A commit by another connection is therefore seen by
 * every read that starts at least this long after it.
 */
export const DATA_VERSION_TRUSTED_MS = 1;

/**
 * Results of one kind of read, by query, kept until the data behind them may have changed. The
 * store clears it: on its own writes, and when `PRAGMA data_version` shows that another
 * connection (the keys CLI, another instance on the same file) committed. Bounded: when full it
 * starts again, so queries that are never asked twice cannot grow it.
 */
export class ReadCache<V> {
  private readonly entries = new Map<string, V>();

  constructor(private readonly limit: number) {}

  get(query: string): V | undefined {
    return this.entries.get(query);
  }

  set(query: string, value: V): void {
    if (this.entries.size >= this.limit) this.entries.clear();
    this.entries.set(query, value);
  }

  clear(): void {
    this.entries.clear();
  }
}

/**
 * The read caches of one connection, dropped together when another connection has committed.
 * Every cached read calls dropStaleReads first; the connection's own writes clear what they touch.
 */
export class ReadCaches {
  private readonly caches: ReadCache<unknown>[] = [];
  private readonly dataVersion: Database.Statement;
  private lastVersion: number | null = null;
  private lastReadAt = Number.NEGATIVE_INFINITY;

  constructor(db: Database.Database) {
    this.dataVersion = db.prepare('PRAGMA data_version').pluck();
  }

  /** A new cache of at most `limit` results, dropped with the others. */
  create<V>(limit: number): ReadCache<V> {
    const cache = new ReadCache<V>(limit);
    this.caches.push(cache);
    return cache;
  }

  /** Forgets every cached read when another connection has committed since (checked at most once per DATA_VERSION_TRUSTED_MS). */
  dropStaleReads(): void {
    const now = performance.now();
    if (now - this.lastReadAt < DATA_VERSION_TRUSTED_MS) return;
    this.lastReadAt = now;
    const version = this.dataVersion.get() as number;
    if (version === this.lastVersion) return;
    for (const cache of this.caches) cache.clear();
    this.lastVersion = version;
  }
}
