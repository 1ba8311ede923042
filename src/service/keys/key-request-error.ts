/** Which rule of a key request {@link KeyRequestError} reports. */
export type KeyRequestProblem = 'name_length' | 'name_characters' | 'limits_missing' | 'limits_order' | 'limits_not_allowed';

/**
 * Thrown by issueKey for a request it cannot issue a key for. `problem` names the rule broken,
 * so a caller can say it in its own words (the keys CLI names its options); the message says it
 * in the key's terms.
 */
export class KeyRequestError extends Error {
  override name = 'KeyRequestError';

  constructor(
    readonly problem: KeyRequestProblem,
    message: string,
  ) {
    super(message);
  }
}
