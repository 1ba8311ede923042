import type { Logger } from 'pino';
import type { operations } from '../../../generated/openapi.js';
import type { Clock } from '../clock.js';
import type { ApiKeyRecord, HeldClaim, Store } from '../store/store.js';

/** The operationIds of the contract, from the types `npm run generate` writes (openapi-typescript). */
export type OperationId = keyof operations;

type Operation<K extends OperationId> = operations[K];
type OrEmpty<T> = [T] extends [never] ? Record<string, never> : [T] extends [undefined] ? Record<string, never> : NonNullable<T>;

/** The validated request of an operation, typed from the contract. */
export interface HandlerInput<K extends OperationId> {
  path: OrEmpty<Operation<K>['parameters']['path']>;
  query: OrEmpty<Operation<K>['parameters']['query']>;
  headers: OrEmpty<Operation<K>['parameters']['header']>;
  body: NonNullable<Operation<K>['requestBody']> extends { content: { 'application/json': infer B } } ? B : undefined;
}

/** The headers a response declares, without the index signature openapi-typescript adds. */
type DeclaredHeaders<R> = R extends { headers: infer H }
  ? { [N in keyof H as string extends N ? never : N]?: H[N] }
  : Record<string, never>;
/**
 * One response as a handler writes it: a response with a JSON body needs `body`; one without
 * content (openapi-typescript writes `content?: never`, as for a 204) takes none.
 */
type ResponseOf<S, R> = R extends { content: { 'application/json': infer B } }
  ? { status: S; body: B; headers?: DeclaredHeaders<R> }
  : { status: S; body?: undefined; headers?: DeclaredHeaders<R> };

/**
 * What a handler may answer for an operation whose responses (as openapi-typescript writes an
 * operation's `responses`) are `Rs`: one of the declared statuses, with that status's body and
 * headers. Anything else does not compile.
 */
export type ResultOf<Rs> = { [S in keyof Rs]: ResponseOf<S, Rs[S]> }[keyof Rs];

/**
 * What a handler may answer: one of the statuses its operation declares, with that status's
 * body (none where the contract declares no content: `return { status: 204 }`) and headers.
 * Anything else does not compile. (Rate-limit and request-id headers are set by the middleware,
 * not by handlers.)
 */
type HandlerResult<K extends OperationId> = ResultOf<Operation<K>['responses']>;

/** Who is calling: the API key the request was authenticated with. */
export interface Caller {
  key: ApiKeyRecord;
}

/** What a handler may use besides its input. */
export interface HandlerContext {
  store: Store;
  clock: Clock;
  caller: Caller;
  /** The version segment the API is served under (`/v1`), for links. */
  basePath: string;
  log: Logger;
  /** The Idempotency-Key the request claimed: the handler's write records its response under it. */
  idempotency?: HeldClaim;
}

/** The handler of one operation. */
export type Handler<K extends OperationId> = (input: HandlerInput<K>, context: HandlerContext) => Promise<HandlerResult<K>>;

/** One handler per operation of the contract: a missing one does not compile. */
export type Handlers = { [K in OperationId]: Handler<K> };
