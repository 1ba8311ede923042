import type { Response } from 'express';
import type { Logger } from 'pino';
import type { ApiKeyRecord, HeldClaim } from '../../store/store.js';

/**
 * What the middleware learns about a request, kept on `res.locals`. A class with every field
 * declared, rather than Express's `Object.create(null)`, so V8 gives every request's locals the
 * same fast shape.
 */
export class RequestLocals {
  /** The API key the request carried, once authenticated. */
  key: ApiKeyRecord | undefined = undefined;
  /** Why the request has no valid key, when it has none. */
  unauthenticatedReason: string | undefined = undefined;
  /** The store failed while looking the key up: the request ends in 503, not 401. */
  storeError: Error | undefined = undefined;
  /** The claim this request holds on its Idempotency-Key. */
  idempotency: HeldClaim | undefined = undefined;
  private requestLog: Logger | undefined = undefined;

  constructor(
    readonly requestId: string,
    private readonly logger: Logger,
  ) {}

  /** The logger of this request: every line carries its requestId. Made when first used. */
  get log(): Logger {
    this.requestLog ??= this.logger.child({ requestId: this.requestId });
    return this.requestLog;
  }
}

/** The typed view of `res.locals`, set by requestContext for every request. */
export const localsOf = (res: Response): RequestLocals => res.locals as RequestLocals;
