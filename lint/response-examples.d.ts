/** A response as a client sees it: status, headers by name (any case), parsed body. */
export interface SeenResponse {
  status: number;
  headers: Record<string, unknown>;
  body: unknown;
}

/** The inputs of an operation that a 400's `details` can name. */
export interface OperationInputs {
  parameters: { in: string; name: string }[];
  hasRequestBody: boolean;
}

/** A resolved Example Object: `value`, and the headers it goes with in `x-headers`. */
export type ExampleObject = { value?: unknown; 'x-headers'?: Record<string, unknown>; [key: string]: unknown };

export function responseProblems(response: SeenResponse): string[];
export function operationInputs(
  pathItem: Record<string, unknown> | undefined,
  operation: Record<string, unknown>,
  resolve: (value: unknown) => unknown,
): OperationInputs;
export function unfitFields(body: unknown, inputs: OperationInputs): string[];
export function exampleHeaders(
  response: Record<string, unknown>,
  example: ExampleObject | undefined,
  resolve: (value: unknown) => unknown,
): Record<string, unknown>;
export function namedExamples(response: Record<string, unknown>, resolve: (value: unknown) => unknown): [string, ExampleObject][];
