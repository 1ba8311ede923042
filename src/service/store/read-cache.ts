import {
  DeleteQueryNode,
  InsertQueryNode,
  TableNode,
  UpdateQueryNode,
  type KyselyPlugin,
  type OperationNode,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryResult,
  type RootOperationNode,
  type UnknownRow,
} from 'kysely';

/**
 * How long a reading of the database's data version (another connection's commits) is trusted,
 * in milliseconds. A reading takes a shared lock and checks the file (5.6 µs, two fcntl and an
 * fstat), about what the rest of a cached read costs; trusted for 1 ms it was read on most
 * requests under load (4.5 µs of 141 per GET in a CPU profile), trusted for 25 ms it is read 40
 * times a second at most. A commit by another connection (the keys CLI revoking a key) is
 * therefore seen by every read that starts at least this long after it.
 */
export const DATA_VERSION_TRUSTED_MS = 25;

/**
 * Results cached per kind of read, at most this many each; when full, a cache starts again. As
 * many keys of the results loaded are remembered (the set is emptied when full), to keep a result
 * from its second load on.
 */
const CACHED_RESULTS = 1_000;

/**
 * The one table a statement writes, when it names exactly one (an INSERT, or an UPDATE or
 * DELETE of one table without joins); undefined when it may write anywhere (raw SQL, joins,
 * common table expressions).
 */
function tableWritten(node: RootOperationNode): string | undefined {
  let target: OperationNode | undefined;
  if (InsertQueryNode.is(node) && !node.with) target = node.into;
  else if (UpdateQueryNode.is(node) && !node.with && !node.from && !node.joins) target = node.table;
  else if (DeleteQueryNode.is(node) && !node.with && !node.using && !node.joins && node.from.froms.length === 1)
    target = node.from.froms[0];
  return target && TableNode.is(target) ? target.table.identifier.name : undefined;
}

/**
 * Read results kept until the data behind them may have changed, for an engine whose store is
 * the only writer besides occasional other connections (SQLite: the keys CLI, another process
 * on the same file). Results are cached by the table they read. No store method clears
 * anything: `plugin`, given to Kysely, drops the results of the table a statement writes (all
 * of them when it cannot tell which) before and after it, and `dataVersion` (PRAGMA
 * data_version) tells when another connection committed.
 *
 * A result is kept from its second load on, when its key is among the keys of the table loaded
 * since their set was last emptied (it holds at most 1,000, and is emptied when full): reads spread over many keys (a cursor page among thousands, each asked once)
 * would otherwise put one result in and push one out per request, and those results, kept long
 * enough to reach V8's old generation, cost full collections and a long tail. A key asked again
 * and again (every request's API key, a first page) is cached from its second request.
 */
export class ReadCaches {
  private readonly caches = new Map<string, Map<string, unknown>>();
  /** Per table, the keys of the results loaded, kept or not, since the set was last emptied (at most CACHED_RESULTS). */
  private readonly loaded = new Map<string, Set<string>>();
  /** Counts writes to any table; a result read across one is not kept. */
  private everyTable = 0;
  /** Counts writes per table. */
  private readonly perTable = new Map<string, number>();
  private lastVersion: number | null = null;
  private lastReadAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly dataVersion: () => number) {}

  /** Statements under way that may write, and the table each writes (undefined: any). */
  private readonly writing = new WeakMap<object, string | undefined>();

  /** Drops the cached results of what a statement may write, before and after it. */
  readonly plugin: KyselyPlugin = {
    transformQuery: ({ node, queryId }: PluginTransformQueryArgs): RootOperationNode => {
      if (node.kind !== 'SelectQueryNode') {
        const table = tableWritten(node);
        this.writing.set(queryId, table);
        this.changed(table);
      }
      return node;
    },
    transformResult: ({ result, queryId }: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> => {
      // Reads cached while it waited for the connection may predate it.
      if (this.writing.has(queryId)) {
        this.changed(this.writing.get(queryId));
        this.writing.delete(queryId);
      }
      return Promise.resolve(result);
    },
  };

  /** What `table`'s cached results depend on: a result loaded across a change of it is not kept. */
  private generation(table: string): string {
    return `${this.everyTable}:${this.perTable.get(table) ?? 0}`;
  }

  /** The result of reading `table` for `key`: cached, or loaded, and kept when loaded before and no write to `table` ran meanwhile. */
  async read<V>(table: string, key: string, load: () => Promise<V>): Promise<V> {
    this.dropStaleReads();
    let cache = this.caches.get(table);
    if (!cache) this.caches.set(table, (cache = new Map<string, unknown>()));
    if (cache.has(key)) return cache.get(key) as V;
    const before = this.generation(table);
    const value = await load();
    const again = this.loadedBefore(table, key);
    if (before === this.generation(table) && again) {
      if (cache.size >= CACHED_RESULTS) cache.clear();
      cache.set(key, value);
    }
    return value;
  }

  /**
   * Whether `key` of `table` was loaded before, since the set of keys was last emptied; remembers it
   * when not. A kept key stays in the set until it is emptied, so a result that a write dropped is
   * kept again at its next load.
   */
  private loadedBefore(table: string, key: string): boolean {
    let keys = this.loaded.get(table);
    if (!keys) this.loaded.set(table, (keys = new Set<string>()));
    if (keys.has(key)) return true;
    if (keys.size >= CACHED_RESULTS) keys.clear();
    keys.add(key);
    return false;
  }

  /** Forgets what a write to `table` may have changed (every table when undefined). */
  private changed(table?: string): void {
    if (table === undefined) {
      this.everyTable++;
      for (const cache of this.caches.values()) cache.clear();
    } else {
      this.perTable.set(table, (this.perTable.get(table) ?? 0) + 1);
      this.caches.get(table)?.clear();
    }
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
