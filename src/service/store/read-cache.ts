import type { KyselyPlugin, PluginTransformQueryArgs, PluginTransformResultArgs, QueryResult, RootOperationNode, UnknownRow } from 'kysely';

/**
 * How long a reading of the database's data version (another connection's commits) is trusted,
 * in milliseconds. Reading it costs about a tenth of a cached read; under load many reads share
 * one reading instead. A commit by another connection is therefore seen by every read that
 * starts at least this long after it.
 */
export const DATA_VERSION_TRUSTED_MS = 1;

/** Results cached per kind of read, at most this many each; when full, a cache starts again. */
const CACHED_RESULTS = 1_000;

/**
 * Read results kept until the data behind them may have changed, for an engine whose store is
 * the only writer besides occasional other connections (SQLite: the keys CLI, another process
 * on the same file). No store method clears anything: `plugin`, given to Kysely, drops every
 * cached result around each statement that is not a SELECT, and `dataVersion` (PRAGMA
 * data_version) tells when another connection committed.
 */
export class ReadCaches {
  private readonly caches = new Map<string, Map<string, unknown>>();
  /** Changes with every write of this connection; a result read across one is not kept. */
  private writes = 0;
  private lastVersion: number | null = null;
  private lastReadAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly dataVersion: () => number) {}

  /** Statements under way that may write. */
  private readonly writing = new WeakSet<object>();

  /** Drops every cached result before and after any statement that may write. */
  readonly plugin: KyselyPlugin = {
    transformQuery: ({ node, queryId }: PluginTransformQueryArgs): RootOperationNode => {
      if (node.kind !== 'SelectQueryNode') {
        this.writing.add(queryId);
        this.changed();
      }
      return node;
    },
    transformResult: ({ result, queryId }: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> => {
      // Reads cached while it waited for the connection may predate it.
      if (this.writing.delete(queryId)) this.changed();
      return Promise.resolve(result);
    },
  };

  /** `kind`'s result for `key`: cached, or loaded and cached unless a write ran while it loaded. */
  async read<V>(kind: string, key: string, load: () => Promise<V>): Promise<V> {
    this.dropStaleReads();
    let cache = this.caches.get(kind);
    if (!cache) this.caches.set(kind, (cache = new Map<string, unknown>()));
    if (cache.has(key)) return cache.get(key) as V;
    const writes = this.writes;
    const value = await load();
    if (writes === this.writes) {
      if (cache.size >= CACHED_RESULTS) cache.clear();
      cache.set(key, value);
    }
    return value;
  }

  private changed(): void {
    this.writes++;
    for (const cache of this.caches.values()) cache.clear();
  }

  /** Forgets every cached result when another connection has committed since (checked at most once per DATA_VERSION_TRUSTED_MS). */
  private dropStaleReads(): void {
    const now = performance.now();
    if (now - this.lastReadAt < DATA_VERSION_TRUSTED_MS) return;
    this.lastReadAt = now;
    const version = this.dataVersion();
    if (version === this.lastVersion) return;
    if (this.lastVersion !== null) this.changed();
    this.lastVersion = version;
  }
}
