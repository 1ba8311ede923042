/**
 * contract-kit: serve any OpenAPI 3.0, 3.1 or 3.2 contract with Express 5, following what the
 * contract says (its operations, security, media types, errors, servers, deprecations), every
 * request and response checked by express-openapi-validator.
 */
export { ContractError, resolveRef, type OpenApiDocument, type SecurityRequirement, type ServerObject } from './contract/document.js';
export { loadContract, parseContract } from './contract/load-contract.js';
export { HTTP_METHODS, isAddedMethod, type HttpMethod } from './contract/methods.js';
export { listOperations, type MediaTypeObject, type Operation, type Parameter } from './contract/operations.js';
export { operationNames } from './contract/names.js';
export { basePathsOf, serverPath, serverUrl } from './contract/servers.js';
export { majorOf } from './contract/version.js';
export { contractServer, unmatchedOf, type ContractServer, type ContractServerOptions, type Unmatched } from './server/contract-server.js';
export type { Steps } from './server/steps.js';
export { PHASES, type ListedStep, type NamedSteps, type Phase, type PhaseSteps } from './server/phases.js';
export type { ValidatorProgress } from './server/validators.js';
export type { ValidatorsReady, WarmUp } from './server/warm-up.js';
export { deprecationHeaders } from './server/deprecation.js';
export type { AnyHandler, HandlerInput, HandlerResult, KitContext } from './server/handlers.js';
export type { BodyIn, BodyOut, Handlers, InputOf, RequestBodyOf, ResultOf, StreamsMark, TypedHandler } from './server/handler-types.js';
export type { UploadedFile } from './server/bodies.js';
export {
  HttpProblem,
  problemDetails,
  type KitProblemCode,
  type ProblemDetail,
  type ProblemFormatter,
  type ProblemResponse,
  UNMATCHED_HEADER,
} from './server/problems.js';
export { authenticationOf, operationOf, pathParametersOf, requestBasePath } from './server/request-state.js';
export { readableDetails, type Finding } from './server/readable-messages.js';
export { MAX_DEPTH, parseStrictJson, type JsonLimits, type StrictJsonRefusal } from './server/strict-json.js';
export { notImplemented } from './server/stubs.js';
export type { Authentication, Credentials, Verified, Verifier } from './server/security.js';
export { closeUnreadBody, DEFAULT_BODY_LIMIT_BYTES } from './server/close-unread-body.js';
export { contractDocuments, type ContractDocumentsOptions } from './server/contract-documents.js';
export {
  contractCors,
  crossOriginOf,
  isPreflight,
  originAllowed,
  parseAllowedOrigin,
  type CorsOptions,
  type CrossOrigin,
} from './server/cors.js';
export { hostRefusal } from './server/host-header.js';
export type { ExampleChoice, MockAnswer, MockConfig, MockServerOptions } from './mock/mock-config.js';
export { serve } from './serve/serve.js';
export type { ServeOptions, Served } from './serve/serve-options.js';
export { serveOptionsFromEnv, SettingError } from './serve/serve-env.js';
export { stopOnSignals, type SignalOptions } from './serve/graceful-stop.js';
export { canonicalAddress } from './serve/client-address.js';
export type { UnparsedRequest } from './serve/unparsed.js';
