/**
 * A parameter's value as it goes on the wire. Parameters of this contract are scalars (string,
 * number, boolean); an object or array here is a mistake in the test, not something to send as
 * "[object Object]".
 */
export function wireText(value: unknown): string {
  if (typeof value === 'object' && value !== null) throw new Error(`a parameter value must be a scalar, got ${JSON.stringify(value)}`);
  return String(value);
}
