import { ApiError } from './api-error.js';

/** 429: the key (or address) kept sending while refused and is banned for `retryAfter` seconds. */
export class KeyBannedError extends ApiError {
  constructor(retryAfter: number, who: 'key' | 'address' = 'key') {
    super(
      429,
      'key_temporarily_banned',
      `${who === 'key' ? 'This API key' : 'This client address'} kept sending requests while refused and is banned for ${retryAfter} more seconds.`,
      undefined,
      { 'Retry-After': String(retryAfter) },
    );
  }
}
