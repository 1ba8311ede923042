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
