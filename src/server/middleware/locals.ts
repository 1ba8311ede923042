import type { Response } from 'express';
import type { Logger } from 'pino';
import type { ApiKeyRecord, IdempotencyScope } from '../../store/store.js';

/** What the middleware learns about a request, kept on `res.locals`. */
export interface RequestLocals {
  requestId: string;
  log: Logger;
  /** The API key the request carried, once authenticated. */
  key?: ApiKeyRecord;
  /** Why the request has no valid key, when it has none. */
  unauthenticatedReason?: string;
  /** The store failed while looking the key up: the request ends in 503, not 401. */
  storeError?: Error;
  /** The Idempotency-Key this request claimed. */
  idempotency?: IdempotencyScope;
}

/** The typed view of `res.locals`. */
export const localsOf = (res: Response): RequestLocals => res.locals as RequestLocals;
