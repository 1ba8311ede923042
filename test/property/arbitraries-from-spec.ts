import fc from 'fast-check';
import { resolveRef, type OpenApiDocument } from '../../src/contract/load-spec.js';
import { listOperations, type Operation } from 'contract-kit';
import { needsKey, REFUSALS, undeclaredRefusal, type Refusal } from '../../lint/refusals.js';
import {
  ContractSchemas,
  readingsOf,
  SchemaValues,
  toJsonText,
  UnsupportedSchemaError,
  wireEdits,
  type Broken,
  type ValueOverrides,
} from 'contract-kit/testing';
import { wireText } from '../support/wire-text.js';

/** How a generated request authenticates: with a valid key, or with one way of not having one. */
export type AuthKind =
  'valid' | 'missing' | 'not-bearer' | 'malformed' | 'bad-checksum' | 'other-environment' | 'unknown' | 'revoked' | 'in-query' | 'twice';

/** Every way of sending no valid key. */
const INVALID_AUTH: Exclude<AuthKind, 'valid'>[] = [
  'missing',
  'not-bearer',
  'malformed',
  'bad-checksum',
  'other-environment',
  'unknown',
  'revoked',
  'in-query',
  'twice',
];

/** What a generated invalid request broke, and what the contract says the answer is. */
interface Mutation {
  /** The keywords Ajv refuses a broken value for (`maxLength`), or what else is wrong (`repeated`, `not-json`, `bad-key`). */
  kind: string;
  /** Where: `body.name`, `query.limit`, `path.petId`, `header.Idempotency-Key`, `body`, `authorization`. */
  field: string;
  /** The auth mutation, for `bad-key`. */
  auth?: Exclude<AuthKind, 'valid'>;
  expected: { status: number; code: string };
}

/** One request to an operation, as generated: what goes on the wire, and whether the contract allows it. */
export interface GeneratedRequest {
  operationId: string;
  method: string;
  /** The contract's path (`/pets/{petId}`). */
  path: string;
  /** Path parameters as they are written in the URL, before percent-encoding. */
  pathParams: Record<string, string>;
  /** Query parameters in order; a name may repeat. */
  query: [string, string][];
  /** Headers other than Authorization. */
  headers: Record<string, string>;
  /** The body's text and Content-Type, or null for none. */
  body: { text: string; contentType: string } | null;
  auth: AuthKind;
  /** The typed values of a valid request, for the typed client. */
  typed: { path: Record<string, unknown>; query: Record<string, unknown>; header: Record<string, string>; body: unknown } | null;
  /** null when the request is valid per the contract. */
  mutation: Mutation | null;
}

/** The arbitraries of one operation, or why there are none (a schema the generator makes no value for). */
export type OperationArbitraries =
  | {
      operation: Operation;
      /** Requests the contract allows. */
      valid: fc.Arbitrary<GeneratedRequest>;
      /** Requests the contract refuses, each broken in exactly one way. */
      invalid: fc.Arbitrary<GeneratedRequest>;
      unsupported?: undefined;
    }
  | { operation: Operation; unsupported: string };

interface ParameterObject {
  name: string;
  in: 'query' | 'path' | 'header' | 'cookie';
  required?: boolean;
  schema?: unknown;
}

const LONE_SURROGATE = /\p{Cs}/u;
/** What fetch sends unchanged as a header value: visible Latin-1, inner spaces and tabs. */
const SENDABLE_HEADER = /^(?:[\x21-\x7E\x80-\xFF](?:[\x20-\x7E\x80-\xFF\t]*[\x21-\x7E\x80-\xFF])?)?$/;

/**
 * Builds, for every operation of the contract, arbitraries of valid requests (parameters and
 * bodies from their schemas, by schema-values.ts) and of invalid ones (each with one mutation: a
 * parameter or a part of the body edited so that its schema refuses it, a required parameter
 * dropped, an unknown query parameter, a repeated parameter, a body that is not JSON, missing
 * or of another media type, and every way of sending no valid key). Everything comes from the
 * contract, so a field added to it is generated without touching a test. An operation with a
 * schema the generator makes no value for gets a note instead, and its tests are skipped.
 */
export function requestArbitraries(doc: OpenApiDocument, overrides: ValueOverrides = {}): Map<string, OperationArbitraries> {
  const values = new SchemaValues(new ContractSchemas(doc));
  const result = new Map<string, OperationArbitraries>();
  for (const operation of listOperations(doc)) {
    try {
      result.set(operation.name, operationArbitraries(doc, values, operation, overrides));
    } catch (error) {
      if (!(error instanceof UnsupportedSchemaError)) throw error;
      result.set(operation.name, { operation, unsupported: `${operation.name} is not generated: ${error.message}` });
    }
  }
  return result;
}

function operationArbitraries(
  doc: OpenApiDocument,
  values: SchemaValues,
  operation: Operation,
  overrides: ValueOverrides,
): OperationArbitraries {
  const item = doc.paths[operation.path]!;
  const raw = item[operation.method] as {
    parameters?: unknown[];
    requestBody?: unknown;
    responses?: Record<string, unknown>;
    security?: unknown[];
  };
  const parameters = [...((item.parameters as unknown[]) ?? []), ...(raw.parameters ?? [])].map((p) => resolveRef<ParameterObject>(doc, p));
  const declared = new Set(Object.keys(raw.responses ?? {}));
  const body = raw.requestBody
    ? resolveRef<{ required?: boolean; content: Record<string, { schema?: unknown }> }>(doc, raw.requestBody)
    : null;
  const mediaType = body ? Object.keys(body.content).find((t) => t === 'application/json' || t.endsWith('+json')) : undefined;
  if (body && !mediaType) throw new Error(`${operation.name}: only JSON request bodies are generated`);
  const bodySchema = body && mediaType ? body.content[mediaType]!.schema : undefined;

  // The same sentence as lint's animal-store/operation-declares-refusals, which says it first.
  const expect = (which: Refusal) => {
    const { status, code } = REFUSALS[which];
    if (!declared.has(String(status))) throw new Error(undeclaredRefusal(operation.name, which));
    return { status, code };
  };

  // Valid values of each parameter, typed (for the typed client) and as written on the wire.
  const validParameter = (p: ParameterObject): fc.Arbitrary<unknown> => {
    // A parameter is null by being absent: `type: [integer, 'null']` sends integers or nothing.
    const fromSchema = values.valid(p.schema).filter((v) => isScalar(v) && reachesServer(p, wireText(v)));
    const override = overrides[`${p.in}.${p.name}`];
    return override ? override(fromSchema) : fromSchema;
  };
  const parameterRecord = fc.record(
    Object.fromEntries(
      parameters.map((p) => [`${p.in}\u0000${p.name}`, p.required ? validParameter(p) : fc.option(validParameter(p), { nil: undefined })]),
    ),
  ) as fc.Arbitrary<Record<string, unknown>>;
  const validBody = bodySchema === undefined ? fc.constant(undefined) : values.valid(bodySchema);
  const contentTypes = mediaType ? fc.constantFrom(mediaType, `${mediaType}; charset=utf-8`) : fc.constant('');

  const valid: fc.Arbitrary<GeneratedRequest> = fc
    .tuple(parameterRecord, validBody, contentTypes)
    .map(([values, bodyValue, contentType]) => {
      const request: GeneratedRequest = {
        operationId: operation.name,
        method: operation.method.toUpperCase(),
        path: operation.path,
        pathParams: {},
        query: [],
        headers: {},
        body: bodySchema === undefined ? null : { text: toJsonText(bodyValue), contentType },
        auth: 'valid',
        typed: { path: {}, query: {}, header: {}, body: bodyValue },
        mutation: null,
      };
      for (const p of parameters) {
        const value = values[`${p.in}\u0000${p.name}`];
        if (value === undefined) continue;
        setParameter(request, p, wireText(value));
        if (p.in === 'path' || p.in === 'query') request.typed![p.in][p.name] = value;
        if (p.in === 'header') request.typed!.header[p.name] = wireText(value);
      }
      return request;
    });

  // Each family of invalid requests: a valid request with one thing broken.
  const families: { label: string; arb: fc.Arbitrary<GeneratedRequest> }[] = [];
  const invalidRequest = (request: GeneratedRequest, mutation: Mutation): GeneratedRequest => ({ ...request, typed: null, mutation });
  const broken = (b: Broken) => ({ kind: b.kind, field: b.field, expected: expect('invalid') });

  for (const p of parameters) {
    const field = `${p.in}.${p.name}`;
    families.push({
      label: `${field} refused`,
      arb: fc.tuple(valid, invalidWireValues(values, p, field)).map(([request, b]) => {
        const copy = structuredClone(request);
        setParameter(copy, p, String(b.value));
        return invalidRequest(copy, broken(b));
      }),
    });
    if (p.required && p.in !== 'path') {
      families.push({
        label: `${field} missing-required`,
        arb: valid.map((request) => {
          const copy = structuredClone(request);
          removeParameter(copy, p);
          return invalidRequest(copy, { kind: 'missing-required', field, expected: expect('invalid') });
        }),
      });
    }
    if (p.in === 'query') {
      families.push({
        label: `${field} repeated`,
        arb: fc.tuple(valid, validParameter(p), validParameter(p)).map(([request, a, b]) => {
          const copy = structuredClone(request);
          removeParameter(copy, p);
          copy.query.push([p.name, wireText(a)], [p.name, wireText(b)]);
          return invalidRequest(copy, { kind: 'repeated', field, expected: expect('invalid') });
        }),
      });
    }
  }

  // A query parameter the operation does not declare.
  const declaredQuery = new Set(parameters.filter((p) => p.in === 'query').map((p) => p.name));
  const unknownName = fc
    .oneof(
      fc.constantFrom(
        '__proto__',
        'constructor',
        'hasOwnProperty',
        'toString',
        'api_key',
        'key',
        'access_token',
        'id',
        'page',
        'offset',
        'limit[]',
        'Limit',
        'STATUS',
      ),
      fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_.]{0,15}$/),
    )
    .filter((n) => !declaredQuery.has(n));
  families.push({
    label: 'query.<undeclared> extra-property',
    arb: fc.tuple(valid, unknownName, fc.string({ maxLength: 10 })).map(([request, name, value]) => {
      const copy = structuredClone(request);
      copy.query.push([name, value]);
      return invalidRequest(copy, { kind: 'extra-property', field: `query.${name}`, expected: expect('invalid') });
    }),
  });

  if (bodySchema !== undefined && mediaType) {
    families.push({
      label: 'body refused',
      arb: fc.tuple(valid, values.invalid(bodySchema, 'body')).map(([request, b]) => ({
        ...invalidRequest(request, broken(b)),
        body: { text: toJsonText(b.value), contentType: request.body!.contentType },
      })),
    });
    families.push({
      label: 'body not-json',
      arb: fc
        .tuple(valid, fc.nat(), fc.constantFrom('', '{', '}', ',', "'", 'NaN', 'undefined', '\u0000', ' x'))
        .map(([request, cut, junk]) => {
          const text = request.body!.text;
          const spoiled = text.slice(0, cut % (text.length + 1)) + junk;
          return {
            ...invalidRequest(request, { kind: 'not-json', field: 'body', expected: expect('invalid') }),
            body: { text: spoiled, contentType: request.body!.contentType },
          };
        })
        .filter((r) => !isJson(r.body.text)),
    });
    if (body!.required) {
      families.push({
        label: 'body no-body',
        arb: valid.map((request) => ({
          ...invalidRequest(request, { kind: 'no-body', field: 'body', expected: expect('invalid') }),
          body: null,
        })),
      });
    }
    const otherTypes = fc.constantFrom(
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/xml',
      'application/jsonx',
      'text/json',
      'application/octet-stream',
    );
    families.push({
      label: 'body wrong-content-type',
      arb: fc.tuple(valid, otherTypes).map(([request, contentType]) => ({
        ...invalidRequest(request, { kind: 'wrong-content-type', field: 'body', expected: expect('wrong-content-type') }),
        body: { text: request.body!.text, contentType },
      })),
    });
  }

  if (needsKey(raw, doc.security)) {
    for (const auth of INVALID_AUTH) {
      families.push({
        label: `authorization ${auth}`,
        arb: valid.map((request) => ({
          ...invalidRequest(request, { kind: 'bad-key', field: 'authorization', auth, expected: expect('bad-key') }),
          auth,
        })),
      });
    }
  }

  if (families.length === 0) throw new Error(`${operation.name}: no way to make an invalid request was found`);
  // A quarter of the invalid requests are about the key, the rest about everything else.
  const [keyFamilies, otherFamilies] = [
    families.filter((f) => f.label.startsWith('authorization ')),
    families.filter((f) => !f.label.startsWith('authorization ')),
  ];
  // Values the schemas refuse are the widest family: four times the weight of each other.
  const weighted = otherFamilies.map((f) => ({ weight: f.label.endsWith(' refused') ? 4 : 1, arbitrary: f.arb }));
  const groups = [
    ...(otherFamilies.length > 0 ? [{ weight: 3, arbitrary: fc.oneof(...weighted) }] : []),
    ...(keyFamilies.length > 0 ? [{ weight: 1, arbitrary: fc.oneof(...keyFamilies.map((f) => f.arb)) }] : []),
  ];
  return { operation, valid, invalid: fc.oneof(...groups) };
}

/**
 * Whether a parameter value reaches the server as generated: a URL carries no lone surrogate (it
 * would become U+FFFD), a path parameter is not empty, `.` or `..` (URLs drop them), a header
 * value is sendable as it is.
 */
function reachesServer(p: ParameterObject, value: string): boolean {
  if (p.in === 'header') return SENDABLE_HEADER.test(value);
  if (LONE_SURROGATE.test(value)) return false;
  return p.in !== 'path' || (value !== '' && value !== '.' && value !== '..');
}

/**
 * Invalid values of a parameter as they are written on the wire: a valid value's text edited
 * (schema-values.ts), kept when the schema refuses every way of reading it (a query string has
 * no types: `limit=abc` is a string, `limit=1.5` a number that is no integer).
 */
function invalidWireValues(values: SchemaValues, p: ParameterObject, field: string): fc.Arbitrary<Broken> {
  return values
    .valid(p.schema)
    .filter(isScalar)
    .chain((v) => wireEdits(wireText(v)))
    .filter((text) => reachesServer(p, text))
    .map((text): Broken | null => {
      const readings = readingsOf(text);
      const refusals = readings?.map((r) => values.refused(p.schema, r));
      if (!refusals || refusals.some((r) => r === null)) return null;
      // Named for the most specific reading: `maximum` for 101, not `type` for the string "101".
      return { value: text, field, kind: refusals.at(-1)! };
    })
    .filter((b): b is Broken => b !== null);
}

function isScalar(value: unknown): value is string | number | boolean {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function setParameter(request: GeneratedRequest, p: ParameterObject, value: string): void {
  removeParameter(request, p);
  if (p.in === 'path') request.pathParams[p.name] = value;
  else if (p.in === 'query') request.query.push([p.name, value]);
  else if (p.in === 'header') request.headers[p.name] = value;
  else throw new Error(`${p.in} parameters are not generated`);
}

function removeParameter(request: GeneratedRequest, p: ParameterObject): void {
  if (p.in === 'path') delete request.pathParams[p.name];
  else if (p.in === 'query') request.query = request.query.filter(([name]) => name !== p.name);
  else if (p.in === 'header') delete request.headers[p.name];
}
