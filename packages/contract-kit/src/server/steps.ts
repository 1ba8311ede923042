import type { RequestHandler } from 'express';
import { parse as parseCookies } from 'cookie';
import type { OpenApiDocument } from '../contract/document.js';
import { isAddedMethod } from '../contract/methods.js';
import type { Operation } from '../contract/operations.js';
import { arrayFields, readParsedBody, withArrays, type BodyLimits } from './bodies.js';
import { deprecationHeaders } from './deprecation.js';
import { contextOf, HandlerContext, inputOf, notImplemented, send, setStatus, type AnyHandler, type HandlerResult } from './handlers.js';
import { charsetOf, essenceOf, kindOf, matchMediaType } from './media-types.js';
import { HttpProblem, invalidRequest, type KitProblemCode } from './problems.js';
import { stateOf, type RequestState } from './request-state.js';
import { authenticate, type SecurityPlan } from './security.js';
import { parameterProblems } from './strict-parameters.js';
import { streamedAnswerOf, streamedAnswers, streamedRequests } from './stream-media.js';
import type { OpenStreams } from './streams.js';
import { requestItems } from './streamed-requests.js';
import type { ContractSchemas } from '../testing/schemas.js';
import { coercesBody, isValidatorError } from './validation.js';
import { pathParameterNames, VALIDATOR_METHOD, validatorUrl } from './validator-document.js';
import type { OperationValidators } from './validators.js';

/**
 * The steps the kit runs for an operation, each an Express middleware, in this order. An
 * application's own run between them by phase (see ContractServerOptions.steps and PHASES).
 */
export interface Steps {
  /** Deprecation, Sunset and Link on every answer of a deprecated operation (first, so that a 401 carries them). */
  deprecation: RequestHandler;
  /** Finds the caller by the operation's security (authenticationOf), refusing nothing yet. */
  authenticate: RequestHandler;
  /** Refuses (401, 403, or what a verifier threw) a request whose credentials did not hold. */
  authorize: RequestHandler;
  /** 410 for an operation past its `x-sunset`. */
  sunset: RequestHandler;
  /** 400 for a query parameter given twice, or an integer parameter not in decimal digits. */
  parameters: RequestHandler;
  /** Reads the body as its media type says (413, 415, 400 for what cannot be read). */
  body: RequestHandler;
  /** express-openapi-validator on the operation: parameters, headers, body, and the JSON answers. */
  validate: RequestHandler;
  /** Calls the operation's handler (501 without one) and sends what it answers. */
  handler: RequestHandler;
}

/** What the steps of every operation share. */
export interface StepOptions {
  doc: OpenApiDocument;
  limits: BodyLimits;
  /** The validators of the contract's operations. */
  validators: OperationValidators;
  /** The largest body whose refusal names every wrong value; a larger one is checked up to its first (see ContractServerOptions). */
  allErrorsUpToBytes: number;
  now: () => number;
  context: ((req: Parameters<RequestHandler>[0], res: Parameters<RequestHandler>[1]) => object) | undefined;
  beforeSend:
    ((result: HandlerResult, req: Parameters<RequestHandler>[0], res: Parameters<RequestHandler>[1]) => void | Promise<void>) | undefined;
  /** The streamed answers being sent. */
  streams: OpenStreams;
  /** Adds the kit's fields to what the application's context gave (see contextOf). */
  withKit: ReturnType<typeof contextOf>;
}

const state = (req: Parameters<RequestHandler>[0]): RequestState => stateOf(req)!;

/** Runs Express middleware one after another, as a router would; an error (thrown, rejected, or passed on) skips the rest. */
export function chain(handlers: readonly RequestHandler[]): RequestHandler {
  return (req, res, done) => {
    let i = 0;
    const next = (error?: unknown): void => {
      if (error !== undefined && error !== null) return done(error);
      const handler = handlers[i++];
      if (!handler) return done();
      try {
        const result = handler(req, res, next);
        if (result instanceof Promise) result.catch(next);
      } catch (thrown) {
        next(thrown ?? new Error('a step threw nothing'));
      }
    };
    next();
  };
}

function bodyStep(doc: OpenApiDocument, op: Operation, limits: BodyLimits, schemas: () => ContractSchemas): RequestHandler {
  const declared = Object.keys(op.requestBody?.content ?? {});
  const arraysOf = new Map<string, Set<string>>();
  const streamed = streamedRequests(doc, op);
  return async (req, _res, next) => {
    const { headers } = req;
    if (!op.requestBody) return next();
    if (headers['transfer-encoding'] === undefined && !(Number(headers['content-length'] ?? 0) > 0)) {
      // An empty form is a form without fields; an empty JSON body is no body.
      const empty = essenceOf(headers['content-type']);
      if (empty === 'application/x-www-form-urlencoded' && matchMediaType(declared, empty)) {
        req.body = {};
        return next();
      }
      if (op.requestBody.required) throw invalidRequest([{ field: 'body', message: 'is required' }], 'The request body is missing.');
      return next();
    }
    const essence = essenceOf(headers['content-type']);
    const mediaType = essence && matchMediaType(declared, essence);
    const stream = mediaType ? streamed.get(mediaType) : undefined;
    const limitBytes = stream ? limits.streamLimitBytes : limits.limitBytes;
    if (Number(headers['content-length']) > limitBytes) {
      throw new HttpProblem<KitProblemCode>(413, 'payload_too_large', `The request body is larger than ${limitBytes} bytes.`);
    }
    if (!essence || !mediaType) {
      throw new HttpProblem<KitProblemCode>(
        415,
        'unsupported_media_type',
        `The request body must be ${declared.join(' or ')}${essence ? `, not ${essence}` : ''}.`,
      );
    }
    const kind = kindOf(essence);
    const charset = charsetOf(headers['content-type']);
    if (kind !== 'binary' && charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
      throw new HttpProblem<KitProblemCode>(415, 'unsupported_media_type', `The request body must be ${essence} in UTF-8, not ${charset}.`);
    }
    if (stream) {
      // Read as the handler asks for its items: each checked against itemSchema as it comes.
      const { framing, itemSchema } = stream;
      const check = (item: unknown) => schemas().errors(itemSchema, item);
      state(req).items = requestItems(req, framing, check, {
        ...limits,
        itemBytes: limits.limitBytes,
        totalBytes: limits.streamLimitBytes,
      });
      return next();
    }
    const parsed = await readParsedBody(req, kind, limits);
    if (kind === 'form' || kind === 'multipart') {
      let arrays = arraysOf.get(mediaType);
      if (!arrays) arraysOf.set(mediaType, (arrays = arrayFields(doc, op, mediaType)));
      req.body = withArrays(parsed.value, arrays);
    } else req.body = parsed.value;
    state(req).files = parsed.files;
    state(req).bodyBytes = parsed.bytes;
    next();
  };
}

/**
 * express-openapi-validator for the operation (see OperationValidators), shown the request's URL
 * as validatorUrl, a method it does not know as VALIDATOR_METHOD, and its Content-Type without
 * parameters while it runs: the validator compiles
 * its checks per Content-Type, and the warm-up compiled them for each media type as declared. A
 * body over `allErrorsUpToBytes` goes to a validator that stops at its first wrong value.
 */
function validateStep(op: Operation, validators: OperationValidators, allErrorsUpToBytes: number): RequestHandler {
  const names = pathParameterNames(op);
  const chains = new Map<RequestHandler[], RequestHandler>();
  const cookies = op.parameters.some((p) => p.in === 'cookie');
  // A method the validator does not know (QUERY, an additionalOperations one) is shown as the one its document gives it.
  const shownAs = isAddedMethod(op.method) ? VALIDATOR_METHOD.toUpperCase() : undefined;
  return (req, res, next) => {
    // The validator checks cookie parameters in req.cookies alone, which only a cookie parser (cookie-parser) sets.
    if (cookies && req.cookies === undefined) req.cookies = parseCookies(req.headers.cookie ?? '');
    const contentType = req.headers['content-type'];
    const essence = req.body === undefined ? undefined : essenceOf(contentType);
    validators.asked(op);
    const allErrors = state(req).bodyBytes <= allErrorsUpToBytes;
    const handlers = validators.handlers(op, coercesBody(essence ? kindOf(essence) : 'none'), allErrors);
    let validator = chains.get(handlers);
    if (!validator) chains.set(handlers, (validator = chain(handlers)));
    const { url, method } = req;
    req.url = validatorUrl(validators.slot(op), names, state(req).params, url);
    if (shownAs) req.method = shownAs;
    if (essence) req.headers['content-type'] = essence;
    validator(req, res, (error?: unknown) => {
      req.url = url;
      req.method = method;
      if (essence) req.headers['content-type'] = contentType;
      // A schema it could not compile: the operation gets a validator of its own for its next request.
      if (error !== undefined && !isValidatorError(error)) validators.isolate(op);
      next(error);
    });
  };
}

/** The steps of one operation. */
export function stepsOf(op: Operation, plan: SecurityPlan, handler: AnyHandler | undefined, options: StepOptions): Steps {
  const sunsetAt = op.sunset ? Date.parse(op.sunset) : Number.POSITIVE_INFINITY;
  const streams = streamedAnswers(options.doc, op);
  return {
    deprecation: (req, res, next) => {
      const headers = deprecationHeaders(op, state(req).basePath);
      if (headers) res.set(headers);
      next();
    },
    authenticate: async (req, _res, next) => {
      state(req).authentication = await authenticate(plan, req);
      next();
    },
    authorize: (req, _res, next) => {
      const failure = state(req).authentication?.failure;
      // What a verifier threw is thrown as it was: an HttpProblem, or the application's own error.
      // eslint-disable-next-line @typescript-eslint/only-throw-error
      if (failure !== undefined) throw failure;
      next();
    },
    sunset: (req, _res, next) => {
      if (options.now() >= sunsetAt) {
        const successor = /^<([^>]*)>/.exec(deprecationHeaders(op, state(req).basePath)?.Link ?? '')?.[1];
        const removed = `${op.method.toUpperCase()} ${op.path} was removed on ${new Date(sunsetAt).toUTCString()}`;
        throw new HttpProblem<KitProblemCode>(410, 'gone', `${removed}${successor ? `; use ${successor} instead` : ''}.`);
      }
      next();
    },
    parameters: (req, _res, next) => {
      const details = parameterProblems(op, req.query, state(req).params);
      if (details.length > 0) throw invalidRequest(details);
      next();
    },
    body: bodyStep(options.doc, op, options.limits, options.streams.options.schemas),
    validate: validateStep(op, options.validators, options.allErrorsUpToBytes),
    handler: async (req, res) => {
      if (!handler) throw notImplemented(op);
      const { authentication } = state(req);
      const kit = new HandlerContext(op, authentication, req, res);
      const context = options.context ? options.withKit(options.context(req, res), kit) : kit;
      const result = await handler(inputOf(req, state(req)), context);
      await options.beforeSend?.(result, req, res);
      const stream = streams.size === 0 ? undefined : streamedAnswerOf(op, streams, result);
      if (!stream) return send(res, op, result);
      setStatus(res, result);
      res.type(stream.contentType);
      await options.streams.send(req, res, op, stream.media, stream.framing, result.body, kit.controller());
    },
  };
}
