/**
 * The result of synchronous work as a promise, and what it throws as a rejection (the Promise
 * constructor rejects with what its executor throws): how the SQLite repositories, over
 * better-sqlite3's synchronous calls, keep the Store interface's promise that a failure rejects,
 * as PostgreSQL's do, without an async function per call.
 */
export function settled<T>(work: () => T): Promise<T> {
  return new Promise((resolve) => resolve(work()));
}
