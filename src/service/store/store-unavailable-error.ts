/**
 * The store cannot be reached or did not answer in time. The service answers 503 with
 * Retry-After, never a 401 or a 500, and recovers by itself when the store is back.
 */
export class StoreUnavailableError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'StoreUnavailableError';
  }
}
