import type { Verifier } from 'contract-kit';

/** One verifying function per security scheme of the contract. Each refuses every request until you write it. */
export const security: Record<string, Verifier> = {
  /** __SCHEME__: gets __CREDENTIALS__. Return { caller } for valid credentials, undefined otherwise. */
  __SCHEME__: () => undefined,
};
