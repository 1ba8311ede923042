import type { ErrorRequestHandler, Request, RequestHandler } from 'express';
import type { OpenApiDocument } from '../contract/document.js';
import type { Operation } from '../contract/operations.js';
import type { CrossOrigin } from './cors.js';
import type { AnyHandler, HandlerResult } from './handlers.js';
import type { ListedStep, PhaseSteps } from './phases.js';
import type { HttpProblem, ProblemFormatter, ProblemResponse } from './problems.js';
import type { Verifier } from './security.js';
import type { ValidatorProgress } from './validators.js';
import type { ValidatorsReady, WarmUp } from './warm-up.js';

/** How contractServer serves a contract. */
export interface ContractServerOptions<Context extends object = object> {
  /** The contract, as loadContract read it. */
  contract: OpenApiDocument;
  /** Where the contract came from, for messages (its file). @default 'the contract' */
  label?: string;
  /**
   * The handler of each operation, by its name (see operationNames). One missing answers 501.
   * Check the map against the contract with `satisfies Handlers<Operations, Context>`.
   */
  handlers: Readonly<Record<string, AnyHandler<Context> | undefined>>;
  /** One verifying function per security scheme of the contract, by its name. A scheme without one refuses every request. */
  security?: Readonly<Record<string, Verifier | undefined>>;
  /**
   * Builds the error body of every refusal and failure. @default each body built from the schema
   * the contract declares for its status, in its media type (see ContractErrors)
   */
  errors?: ProblemFormatter;
  /** The base paths to serve under. @default the path of each of the contract's servers (see basePathsOf) */
  basePath?: string | readonly string[];
  /** Serve under this server's path only: its description or URL. */
  server?: string;
  /** The largest request body read, in bytes, once inflated. @default 1 MiB */
  bodyLimitBytes?: number;
  /** The most properties one object of a JSON body may have. @default 256 */
  maxProperties?: number;
  /**
   * How many arrays and objects a JSON body may nest one in another (`[[1]]` nests 2); one
   * nested deeper is refused with a 400 before it is parsed. `Infinity`: no bound. @default 64
   */
  maxDepth?: number;
  /**
   * The largest body (in bytes, once inflated) whose 400 names every wrong value, up to 10. The
   * validator checks a larger one up to its first wrong value, which it names alone: reporting
   * each of a body's wrong values costs it about a microsecond apiece, 630 ms for 349,521 empty items in
   * 1 MiB. `Infinity`: every body's. @default 16384
   */
  allErrorsUpToBytes?: number;
  /** Check every JSON answer of a handler against the contract (a mismatch is a 500). @default true */
  validateResponses?: boolean;
  /**
   * When each operation's validator is compiled (see WarmUp): in the `background` once
   * contractServer has returned, a request to an operation not compiled yet compiling it then;
   * on each operation's first request (`lazy`); or as `background` with every request held
   * until all are (`blocking`). `ready` tells when they are. @default 'background'
   */
  warmUp?: WarmUp;
  /**
   * The application's steps of each operation, by phase (see PHASES), each step named: the kit
   * runs them among its own in its order, and `stepsOf` lists them. @default none
   */
  steps?: PhaseSteps;
  /** Steps run before a 404 or 405 (unmatchedOf tells which), such as a rate limit. @default none */
  unmatched?: readonly RequestHandler[];
  /**
   * What the application adds to each handler's context: a new object for each request, to which
   * the kit adds its fields (caller, request, signal...); see contextOf for one given every time.
   */
  context?: (req: Request, res: Parameters<RequestHandler>[1]) => Context;
  /**
   * Told what each handler answered, before it is sent (a throw refuses it instead): where an
   * application records an answer, such as an Idempotency-Key's.
   */
  beforeSend?: (result: HandlerResult, req: Request, res: Parameters<RequestHandler>[1]) => void | Promise<void>;
  /** The WWW-Authenticate realm. @default the contract's info.title */
  realm?: string;
  /** Turns an error of the application (not an HttpProblem) into the problem it is answered with; undefined: a 500. */
  problemOf?: (error: unknown) => HttpProblem | undefined;
  /** Told of every error answered (its problem) and every warning at start, for the application's log. @default console.warn for warnings */
  onError?: (error: unknown, problem: HttpProblem, req: Request) => void;
  onWarning?: (message: string) => void;
  /**
   * The most a streamed request body (OpenAPI 3.2 `itemSchema`) may carry in all, once inflated;
   * each of its items is held to bodyLimitBytes. @default 67108864 (64 MiB)
   */
  streamedBodyLimitBytes?: number;
  /**
   * Milliseconds between the comments that keep an idle server-sent event stream's connection
   * open through proxies; 0 for none. @default 15000
   */
  keepAliveMs?: number;
  /** Milliseconds since the epoch, for `x-sunset`. @default Date.now */
  now?: () => number;
}

/** An Express app's parts that serve a contract. */
export interface ContractServer {
  /**
   * Routes every request under the base paths to its operation's steps; under them, a path or
   * method the contract lacks gets 404 or 405. A request outside them goes on, to another
   * contract's router or the application's routes. Any request without its one Host header
   * gets 400 (see hostRefusal).
   */
  router: RequestHandler;
  /** Answers 404 (after the `unmatched` steps) to whatever reaches it: mount it after every router. */
  notFound: RequestHandler;
  /**
   * Answers any error with the contract's error body (mount it after everything else). With
   * several contracts, mount one: a request another contract's router took is answered as that
   * contract says.
   */
  errorHandler: ErrorRequestHandler;
  operations: Operation[];
  basePaths: string[];
  /** How error answers are made, in a line: how many declared error responses are built from their schemas, or the errors function. */
  errorBodies: string;
  /** The methods and headers a page on another origin must be allowed to send and read (see contractCors). */
  crossOrigin: CrossOrigin;
  /**
   * The answer to a problem no operation took, in the contract's most common error response for
   * its status (or through `errors`); null for a declared response without a body. Give it to
   * serve, which answers requests Node cannot parse with it.
   */
  answerOf: (problem: HttpProblem) => ProblemResponse | null;
  /**
   * Resolves once every operation's validator is compiled (at once with warmUp `lazy`), with how
   * long that took; it never rejects (see ValidatorProgress.failed). A readiness check waits for it.
   */
  ready: Promise<ValidatorsReady>;
  /** How far the compiling of the validators is, now. */
  progress(): ValidatorProgress;
  /**
   * Ends every streamed answer being sent, as if its handler had (its signal aborts): give it to
   * serve's onStopping, or a stop waits for streams that never end. Returns how many it ended.
   */
  endStreams: () => number;
  /** How many streamed answers are being sent now: a gauge for the application's metrics. */
  openStreams: () => number;
  /**
   * The steps of an operation (by its name, see operationNames) in the order they run, the kit's
   * and the application's.
   * @throws Error for a name no operation of the contract has
   */
  stepsOf: (operation: string) => ListedStep[];
}
