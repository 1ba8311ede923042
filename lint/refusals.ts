/**
 * The refusals the service gives a request for what it is, before any handler, with the status
 * and code the contract's error table gives each. Every operation can get the ones its kind
 * allows (refusalsOf), so every such operation must declare them: lint says so
 * (animal-store/operation-declares-refusals), and the property tests, which send such requests
 * to every operation, stop with the same sentence (undeclaredRefusal).
 */
export const REFUSALS = {
  invalid: { status: 400, code: 'invalid_request', requests: 'invalid requests' },
  'bad-key': { status: 401, code: 'unauthorized', requests: 'requests without a valid key' },
  'wrong-content-type': { status: 415, code: 'unsupported_media_type', requests: 'bodies of another media type' },
} as const;
export type Refusal = keyof typeof REFUSALS;

interface OperationShape {
  requestBody?: unknown;
  security?: unknown[];
}

/** Whether the operation needs a key: a security requirement of its own or the contract's, not `{}`. */
export function needsKey(operation: OperationShape, contractSecurity: unknown[] | undefined): boolean {
  return (operation.security ?? contractSecurity ?? []).some((requirement) => Object.keys(requirement as object).length > 0);
}

/**
 * The refusals an operation can get: any is sent an unknown query parameter (400); one that
 * needs a key, a request without one (401); one that takes a body, a body of another media type (415).
 */
export function refusalsOf(operation: OperationShape, contractSecurity: unknown[] | undefined): Refusal[] {
  return [
    'invalid',
    ...(needsKey(operation, contractSecurity) ? (['bad-key'] as const) : []),
    ...(operation.requestBody ? (['wrong-content-type'] as const) : []),
  ];
}

/** What lint and the property tests say of an operation that does not declare a refusal it can get. */
export function undeclaredRefusal(operationId: string, refusal: Refusal): string {
  const { status, requests } = REFUSALS[refusal];
  return `${operationId} does not declare ${status}, which the contract's error table gives for ${requests}`;
}
