import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { notImplementedHint } from '../../src/service/http/errors/not-implemented-error.js';
import { resolveRef, type OpenApiDocument } from '../../src/contract/load-spec.js';

/** What a client saw: enough of a response to check it against the contract. */
export interface ObservedResponse {
  status: number;
  headers: Headers;
  /** The body as received, before any parsing. */
  text: string;
  /** Violations the target itself reported for this exchange (Prism's validation proxy). */
  reported?: string[];
}

interface HeaderObject {
  required?: boolean;
  schema?: Record<string, unknown>;
}
interface ResponseObject {
  headers?: Record<string, unknown>;
  content?: Record<string, { schema?: unknown }>;
}
interface OperationObject {
  operationId?: string;
  deprecated?: boolean;
  'x-sunset'?: string;
  responses?: Record<string, unknown>;
}

/** Headers every response carries, whatever its status (the contract's introduction). */
export const RATE_LIMIT_HEADERS = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'] as const;

/**
 * Checks observed responses against openapi.yaml: the status is one the operation declares,
 * every required header is present and valid, the body parses and matches its schema, an
 * Error body repeats the HTTP status, and every response of a deprecated operation carries
 * Deprecation, Sunset and a successor Link. Returns one sentence per violation.
 */
export class ContractChecker {
  private readonly ajv: Ajv2020;
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly operations = new Map<string, OperationObject>();
  /** The places an Error's `details[].field` may name (`body`, `query`, …): those the description of ErrorDetail.field lists. */
  private readonly fieldPlaces: string[];

  constructor(private readonly doc: OpenApiDocument) {
    const field = resolveRef<{ properties?: { field?: { description?: string } } }>(doc, doc.components?.schemas?.ErrorDetail);
    this.fieldPlaces = [...(field.properties?.field?.description ?? '').matchAll(/`([a-z]+)`/g)].map((match) => match[1]!);
    this.ajv = new Ajv2020({ strict: false, allErrors: true });
    this.ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isSafeInteger(n) });
    this.ajv.addFormat('int32', { type: 'number', validate: (n: number) => Number.isInteger(n) && Math.abs(n) < 2 ** 31 });
    this.ajv.addSchema({ $id: 'openapi.yaml', components: doc.components ?? {} });
    for (const item of Object.values(doc.paths)) {
      for (const op of Object.values(item) as OperationObject[]) {
        if (op && typeof op === 'object' && op.operationId) this.operations.set(op.operationId, op);
      }
    }
  }

  /** Validates `value` against a schema of the contract, returning readable errors. */
  validate(schema: unknown, value: unknown): string[] {
    const key = JSON.stringify(schema);
    let validator = this.validators.get(key);
    if (!validator) {
      validator = this.ajv.compile(JSON.parse(key.replaceAll('"#/components/', '"openapi.yaml#/components/')));
      this.validators.set(key, validator);
    }
    if (validator(value)) return [];
    return (validator.errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message ?? 'is invalid'}`);
  }

  /**
   * Checks a response of a named operation. The 501 of a handler not written yet (the stub of
   * `npm run generate`) is reported as just that, with the file to write, not as a status the
   * contract does not declare.
   */
  checkResponse(operationId: string, observed: ObservedResponse): string[] {
    const op = this.operations.get(operationId);
    if (!op) return [`operation ${operationId} is not in the contract`];
    const unimplemented = this.notImplemented(operationId, observed);
    if (unimplemented) return [unimplemented];
    const declared = Object.keys(op.responses ?? {});
    const raw = op.responses?.[String(observed.status)] ?? op.responses?.[`${String(observed.status)[0]}XX`] ?? op.responses?.default;
    if (!raw) {
      return [`status ${observed.status} is not declared for ${operationId} (declared: ${declared.join(', ')})`];
    }
    const response = resolveRef<ResponseObject>(this.doc, raw);
    const violations = [...this.checkHeaders(response, observed), ...this.checkBody(response, observed)];
    if (op.deprecated) violations.push(...this.checkDeprecation(op, observed));
    return violations;
  }

  /**
   * What to write when `observed` is the service's `501 not_implemented` for an operation whose
   * contract does not declare 501 (a handler not written yet), else null.
   */
  notImplemented(operationId: string, observed: ObservedResponse): string | null {
    const responses = this.operations.get(operationId)?.responses ?? {};
    if (observed.status !== 501 || ['501', '5XX', 'default'].some((status) => status in responses)) return null;
    try {
      return (JSON.parse(observed.text) as { code?: unknown }).code === 'not_implemented' ? notImplementedHint(operationId) : null;
    } catch {
      return null;
    }
  }

  /**
   * Checks a response that no operation declares (an unknown path, a wrong method): it must be
   * an Error body with the rate-limit headers.
   */
  checkErrorResponse(observed: ObservedResponse): string[] {
    const violations: string[] = [];
    for (const name of [...RATE_LIMIT_HEADERS, 'X-Request-Id']) {
      if (observed.headers.get(name) === null) violations.push(`missing header ${name}`);
    }
    violations.push(...this.checkBody({ content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } }, observed));
    return violations;
  }

  private checkHeaders(response: ResponseObject, observed: ObservedResponse): string[] {
    const violations: string[] = [];
    for (const [name, rawHeader] of Object.entries(response.headers ?? {})) {
      const header = resolveRef<HeaderObject>(this.doc, rawHeader);
      const value = observed.headers.get(name);
      if (value === null) {
        if (header.required) violations.push(`missing header ${name}`);
        continue;
      }
      if (!header.schema) continue;
      const typed = header.schema.type === 'integer' && /^-?\d+$/.test(value) ? Number(value) : value;
      for (const error of this.validate(header.schema, typed)) {
        violations.push(`header ${name}: ${JSON.stringify(value)} ${error.replace('(root) ', '')}`);
      }
    }
    return violations;
  }

  private checkBody(response: ResponseObject, observed: ObservedResponse): string[] {
    const content = response.content;
    if (!content) {
      return observed.text.length > 0 ? [`body must be empty for status ${observed.status}, got ${observed.text.length} bytes`] : [];
    }
    const contentType = observed.headers.get('content-type')?.split(';')[0]?.trim().toLowerCase() ?? '';
    const media = content[contentType];
    if (!media) {
      return [`content type "${contentType}" is not declared for status ${observed.status} (declared: ${Object.keys(content).join(', ')})`];
    }
    let body: unknown;
    try {
      body = JSON.parse(observed.text);
    } catch {
      return [`body is not valid JSON: ${JSON.stringify(observed.text.slice(0, 200))}`];
    }
    const violations = this.validate(media.schema, body).map((e) => `body ${e}`);
    const isError = JSON.stringify(media.schema).includes('"#/components/schemas/Error"');
    if (isError && body && typeof body === 'object' && (body as { status?: unknown }).status !== observed.status) {
      violations.push(`Error body status ${String((body as { status?: unknown }).status)} differs from the HTTP status ${observed.status}`);
    }
    if (isError) violations.push(...this.checkDetailFields(body));
    return violations;
  }

  /** Each `details[].field` of an Error body starts with a place ErrorDetail.field's description lists, so a reader knows every one. */
  private checkDetailFields(body: unknown): string[] {
    const details = (body as { details?: unknown } | null)?.details;
    if (!Array.isArray(details)) return [];
    return details
      .map((detail) => String((detail as { field?: unknown }).field))
      .filter((field) => !this.fieldPlaces.includes(field.split('.')[0]!))
      .map(
        (field) =>
          `details field ${JSON.stringify(field)} is in none of the places ErrorDetail.field lists (${this.fieldPlaces.join(', ')})`,
      );
  }

  private checkDeprecation(op: OperationObject, observed: ObservedResponse): string[] {
    const violations: string[] = [];
    const deprecation = observed.headers.get('Deprecation');
    if (!deprecation || !/^@\d+$/.test(deprecation)) {
      violations.push(`deprecated operation: Deprecation header must be an RFC 9745 date (@<seconds>), got ${JSON.stringify(deprecation)}`);
    }
    const sunset = observed.headers.get('Sunset');
    const expected = op['x-sunset'] ? new Date(op['x-sunset']).toUTCString() : null;
    if (sunset === null || (expected !== null && sunset !== expected)) {
      violations.push(`deprecated operation: Sunset header must be ${JSON.stringify(expected)}, got ${JSON.stringify(sunset)}`);
    }
    const link = observed.headers.get('Link');
    if (!link || !/rel="?successor-version"?/.test(link)) {
      violations.push(`deprecated operation: Link header with rel="successor-version" is missing (got ${JSON.stringify(link)})`);
    }
    return violations;
  }
}
