import type { Request } from 'express';
import type { Operation } from '../contract/operations.js';
import type { UploadedFile } from './bodies.js';
import type { Authentication } from './security.js';

/** What the kit learns about a request as it goes through an operation's steps. */
export class RequestState {
  /** Path parameters, percent-decoded, by the names the contract gives them. */
  params: Record<string, string> = {};
  /** Set by the authenticate step. */
  authentication: Authentication | undefined = undefined;
  /** The files of a multipart/form-data body. */
  files: Record<string, UploadedFile | UploadedFile[]> = {};
  /** How many bytes the body step read, once inflated (0 for no body). */
  bodyBytes = 0;
  /** A streamed body (OpenAPI 3.2 `itemSchema`): its items as they are read, for the handler; the body step reads nothing of it. */
  items: AsyncIterable<unknown> | undefined = undefined;

  constructor(
    readonly operation: Operation,
    /** The base path the request came under (`/v1`). */
    readonly basePath: string,
  ) {}
}

const STATE = Symbol('contract-kit');

/** The state of a request the kit routed to an operation (undefined for one it did not). */
export const stateOf = (req: Request): RequestState | undefined => (req as Request & { [STATE]?: RequestState })[STATE];

export const setState = (req: Request, state: RequestState): void => {
  (req as Request & { [STATE]?: RequestState })[STATE] = state;
};

/** The contract's operation a request was routed to, or undefined (a path or method the contract lacks). */
export const operationOf = (req: Request): Operation | undefined => stateOf(req)?.operation;

/** The base path a request routed to an operation came under (`/v1`), or undefined for one not routed. */
export const requestBasePath = (req: Request): string | undefined => stateOf(req)?.basePath;

/** The path parameters of a request routed to an operation, percent-decoded, by the contract's names (undefined for one not routed). */
export const pathParametersOf = (req: Request): Readonly<Record<string, string>> | undefined => stateOf(req)?.params;

/** Who called, as the authenticate step found (undefined before it, or for a request not routed). */
export const authenticationOf = (req: Request): Authentication | undefined => stateOf(req)?.authentication;
