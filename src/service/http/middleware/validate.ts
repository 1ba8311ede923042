import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { OpenApiSpecLoader, type Spec } from 'express-openapi-validator/dist/framework/openapi.spec.loader.js';
import type { OpenApiRequestMetadata } from 'express-openapi-validator/dist/framework/types.js';
import { RequestValidator, ResponseValidator } from 'express-openapi-validator/dist/middlewares/index.js';
import { SchemaPreprocessor } from 'express-openapi-validator/dist/middlewares/parsers/schema.preprocessor.js';
import { OpenApiValidator } from 'express-openapi-validator/dist/openapi.validator.js';
import { lengthBeforePattern } from '../../../contract/length-before-pattern.js';
import type { OpenApiDocument } from '../../../contract/load-spec.js';
import type { OperationInfo } from '../../../contract/operations.js';
import { localsOf } from './locals.js';

/**
 * The express-openapi-validator release this adapter was written against. It is the one place
 * in the project that imports the validator's dist/ files (not its public API): package.json
 * pins this version exactly, and test/server/validate.test.ts fails on any other.
 */
export const ADAPTED_VERSION = '5.6.2';

/** The options express-openapi-validator runs with on the contract. */
export const VALIDATOR_OPTIONS = {
  validateApiSpec: true,
  validateRequests: { allowUnknownQueryParameters: false, coerceTypes: false, allErrors: true },
  validateResponses: { removeAdditional: false, allErrors: true },
  validateSecurity: false,
  ignoreUndocumented: false,
  validateFormats: true,
} as const;

/** Options of {@link validate}. */
export interface ValidateOptions {
  /**
   * Check the contract itself against the OpenAPI schema before serving (the validator's
   * `validateApiSpec`). With it, start-up takes about a third longer (the validator compiles the
   * OpenAPI schema, then checks the contract against it); `npm run check` and the tests check
   * the same contract before it ships (test/server/validate.test.ts).
   * @default true
   */
  checkSpec?: boolean;
}

/** What express-openapi-validator's metadata step puts on `req.openapi`, for one operation. */
interface OperationMetadata {
  expressRoute: string;
  openApiRoute: string;
  schema: OpenApiRequestMetadata['schema'];
  responseSchema: unknown;
}

/** The validator's pieces, built once the contract is loaded. */
export interface Validators {
  metadata: Map<string, OperationMetadata>;
  serial: number;
  request: RequestValidator;
  response: RequestHandler;
}

const keyOf = (method: string, path: string) => `${method.toUpperCase()} ${path}`;

/**
 * express-openapi-validator on the contract: every request (parameters, headers, body, content
 * type, unknown query parameters) and every response body the handlers send. Failures are thrown
 * to the error handler, which answers with the Error body.
 *
 * The validator's own request and response validators do the checking, with the options of
 * {@link VALIDATOR_OPTIONS}; what changes is how they are reached. `OpenApiValidator.middleware`
 * returns six middlewares that each wait on the loaded spec (a promise turn per middleware per
 * request), and its metadata step compiles a path-to-regexp expression for every contract path on
 * every request. Here the spec is loaded once, and `req.openapi` is set from the operation the
 * request was already matched to (routing.ts), with the same schema objects the validator's
 * metadata step would set (test/server/validate.test.ts compares the two). Its security step is
 * off (authenticate.ts checks keys) and its multipart step has nothing to do: the contract takes
 * only JSON, and json-body.ts refuses every other media type before this runs.
 */
export function validate(doc: OpenApiDocument, operations: OperationInfo[], options: ValidateOptions = {}): RequestHandler {
  let validators: Validators | undefined;
  const ready = loadValidators(doc, options).then((built) => {
    for (const op of operations) {
      if (!built.metadata.has(keyOf(op.method, op.path)))
        throw new Error(`The validator found no route for ${op.method.toUpperCase()} ${op.path}`);
    }
    validators = built;
  });
  // A request that comes while the validators are being built waits for them (and fails with
  // the reason if they cannot be built); no request, no unhandled rejection.
  ready.catch(() => undefined);

  const run = (v: Validators, req: Request, res: Response, next: NextFunction) => {
    const op = localsOf(res).operation;
    const meta = op && v.metadata.get(keyOf(op.method, op.path));
    if (!meta) return next();
    // A copy: the validator coerces the parameters it is given (petId '7' → 7) in place.
    const pathParams = { ...localsOf(res).pathParams };
    const openapi = {
      expressRoute: meta.expressRoute,
      openApiRoute: meta.openApiRoute,
      pathParams,
      schema: meta.schema,
      serial: v.serial,
      _responseSchema: meta.responseSchema,
    };
    (req as Request & { openapi: unknown }).openapi = openapi;
    req.params = pathParams;
    // In the validator's own order: the request is checked, then the response validator wraps
    // res.json for this request (so a refused request's Error body is not checked against it).
    Promise.resolve(
      v.request.validate(req as never, res as never, (error?: unknown) => (error ? next(error) : v.response(req, res, next))),
    ).catch(next);
  };

  return (req, res, next) => {
    if (validators) return run(validators, req, res, next);
    // The validator refuses a request by throwing: the throw must reach the error handler
    // from inside this promise too.
    ready.then(() => run(validators!, req, res, next)).catch(next);
  };
}

/** Loads and checks the contract as express-openapi-validator does, and builds its validators. */
export async function loadValidators(doc: OpenApiDocument, { checkSpec = true }: ValidateOptions = {}): Promise<Validators> {
  // The validator object is only asked for its normalised options (its apiSpec is not read).
  const oav = new OpenApiValidator({ apiSpec: doc as never, ...structuredClone(VALIDATOR_OPTIONS), validateApiSpec: checkSpec });
  const loader = new OpenApiSpecLoader({
    apiDoc: lengthBeforePattern(doc) as never,
    validateApiSpec: oav.options.validateApiSpec,
    $refParser: oav.options.$refParser,
  });
  if (!checkSpec) withoutSchemaValidator(loader);
  const spec: Spec = await loader.load();
  const responseOptions = oav.options.validateResponses as never;
  const { apiDocRes } = new SchemaPreprocessor(spec.apiDoc, oav.ajvOpts.preprocessor, responseOptions).preProcess();
  const metadata = new Map<string, OperationMetadata>();
  for (const route of spec.routes) {
    const pathKey = route.openApiRoute.substring(route.basePath.length);
    const method = route.method.toLowerCase();
    metadata.set(keyOf(method, pathKey), {
      expressRoute: route.expressRoute,
      openApiRoute: route.openApiRoute,
      schema: (spec.apiDoc.paths as Record<string, Record<string, unknown>>)[pathKey]![method] as OperationMetadata['schema'],
      responseSchema: (apiDocRes.paths as Record<string, Record<string, unknown>>)[pathKey]![method],
    });
  }
  return {
    metadata,
    serial: spec.serial,
    request: new RequestValidator(spec.apiDoc, oav.ajvOpts.request),
    response: new ResponseValidator(apiDocRes, oav.ajvOpts.response, responseOptions, spec.serial).validate(),
  };
}

/** The private parts of the validator's OpenAPIFramework that {@link withoutSchemaValidator} uses. */
interface FrameworkInternals {
  args: { apiDoc: unknown; $refParser?: unknown };
  loadSpec(apiDoc: unknown, refParser: unknown): Promise<{ servers?: unknown[]; [key: string]: unknown }>;
  getBasePathsFromServers(servers: unknown): { all(): string[] }[];
  sortApiDocTags(apiDoc: unknown): void;
  initialize(visitor: { visitApi?: (context: { basePaths: string[]; getApiDoc: () => unknown }) => void }): Promise<unknown>;
}

/**
 * Makes the loader skip what the validator's `OpenAPIFramework.initialize` does even when told
 * not to check the spec: compile the whole OpenAPI 3.1 schema with Ajv (about 140 ms, a fifth of
 * the start-up). Everything else is the framework's own code, in its own order: load and bundle
 * the document, base paths from `servers`, tags sorted, then the loader's route discovery.
 * test/server/validate.test.ts checks the result equals the validator's own loading.
 */
function withoutSchemaValidator(loader: OpenApiSpecLoader): void {
  const framework = (loader as unknown as { framework: FrameworkInternals }).framework;
  framework.initialize = async (visitor) => {
    const apiDoc = await framework.loadSpec(framework.args.apiDoc, framework.args.$refParser);
    const basePathObjects = framework.getBasePathsFromServers(apiDoc.servers);
    const basePaths = [...new Set(basePathObjects.flatMap((basePath) => basePath.all()))];
    framework.sortApiDocTags(apiDoc);
    visitor.visitApi?.({ basePaths, getApiDoc: () => apiDoc });
    return { apiDoc, basePaths };
  };
}
