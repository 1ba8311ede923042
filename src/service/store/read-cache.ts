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
 * in milliseconds (why 25: docs/architecture.md, "Read caches"). A commit by another connection
 * (the keys CLI revoking a key) is seen by every read that starts at least this long after it.
 */
export const DATA_VERSION_TRUSTED_MS = 25;

/**
 * Results cached per table read, at most this many each; when full, a cache starts again. As
 * many keys loaded are remembered per table, and emptied likewise.
 */
const CACHED_RESULTS = 1_000;

/** What is kept for one table: its cached results, and the keys loaded since the set was last emptied, kept or not. */
interface TableCache {
  results: Map<string, unknown>;
  loaded: Set<string>;
}

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
 * A result is kept from its second load on: when its key is among the table's keys loaded since
 * their set was last emptied. Reads spread over many keys (a cursor page among thousands, each
 * asked once) would otherwise put one result in and push one out per request, and those results,
 * kept long enough to reach V8's old generation, cost full collections and a long tail. A key
 * asked again and again (every request's API key, a first page) is cached from its second
 * request; a kept key stays in the set until it is emptied, so a result that a write dropped is
 * kept again at its next load.
 */
export class ReadCaches {
  private readonly tables = new Map<string, TableCache>();
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
    let cache = this.tables.get(table);
    if (!cache) this.tables.set(table, (cache = { results: new Map(), loaded: new Set() }));
    const { results, loaded } = cache;
    if (results.has(key)) return results.get(key) as V;
    const before = this.generation(table);
    const value = await load();
    const loadedBefore = loaded.has(key);
    if (!loadedBefore) {
      if (loaded.size >= CACHED_RESULTS) loaded.clear();
      loaded.add(key);
    }
    if (loadedBefore && before === this.generation(table)) {
      if (results.size >= CACHED_RESULTS) results.clear();
      results.set(key, value);
    }
    return value;
  }

  /** Forgets what a write to `table` may have changed (every table when undefined). */
  private changed(table?: string): void {
    if (table === undefined) {
      this.everyTable++;
      for (const { results } of this.tables.values()) results.clear();
    } else {
      this.perTable.set(table, (this.perTable.get(table) ?? 0) + 1);
      this.tables.get(table)?.results.clear();
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
