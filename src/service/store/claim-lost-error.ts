/**
 * A request's claim on its Idempotency-Key is no longer its own: another request took the key
 * over after the claim lapsed (this instance stalled, or could not renew it), or it was released
 * when the client went away. Nothing is recorded under it; the key's current holder decides.
 */
export class ClaimLostError extends Error {
  constructor(key: string) {
    super(`Idempotency-Key ${key} is not claimed by this request (never claimed, released, or taken over)`);
    this.name = 'ClaimLostError';
  }
}
