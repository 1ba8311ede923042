import type { SqlStore } from './sql-store.js';

export type * from './records.js';

/**
 * Everything the service keeps: the public methods of SqlStore (sql-store.ts), written once for
 * SQLite and PostgreSQL; both pass test/store/store-suite.ts. A store method is added there
 * only, with its test in the suite.
 */
export type Store = Pick<SqlStore, keyof SqlStore>;

/** Stored API keys. */
export type KeyRepository = Pick<Store, 'insertKey' | 'findKeyByHash' | 'listKeys' | 'revokeKey'>;

/** Idempotency-Key records, shared by every instance through the store. */
export type IdempotencyRepository = Pick<
  Store,
  'claimIdempotencyKey' | 'renewIdempotencyKey' | 'completeIdempotencyKey' | 'releaseIdempotencyKey' | 'purgeIdempotencyKeys'
>;
