import { isOpenApi32, resolveRef, type OpenApiDocument } from '../contract/document.js';
import { framingOf, sseDataIsJson, sseJsonContentSchema } from '../contract/openapi-3.2.js';
import { listOperations, type Operation } from '../contract/operations.js';
import { isMediaTypeKey } from '../server/media-types.js';
import { ContractSchemas } from './schemas.js';
import { streamItems } from './stream-items.js';

/** What a client saw: enough of a response to check it against the contract. */
export interface ObservedResponse {
  status: number;
  headers: Headers;
  /** The body as received, before any parsing. */
  text: string;
  /** Violations the target itself reported for this exchange (a validating proxy's). */
  reported?: string[];
  /**
   * For a body of a sequential media type (a stream), read for a while: whether it ended (else
   * it was still open when reading stopped), and the error it failed with (cut off) if it did.
   */
  stream?: { ended: boolean; failed?: string };
}

interface HeaderObject {
  required?: boolean;
  schema?: Record<string, unknown>;
}
interface ResponseObject {
  headers?: Record<string, unknown>;
  content?: Record<string, MediaObject>;
}
/** A media type of an answer: its schema, or (OpenAPI 3.2) the schema of each item of a stream. */
interface MediaObject {
  schema?: unknown;
  itemSchema?: unknown;
}

export interface CheckerOptions {
  /**
   * What to write for an operation whose handler is still the stub `contract-kit generate` wrote
   * (it answers 501 `not_implemented`); by default, that its handler is to be written.
   */
  stubHint?: (operation: Operation) => string;
}

/** Whether a media type carries JSON (`application/json`, `application/problem+json`), whatever parameters it names (`; charset=utf-8`). */
export const isJsonMediaType = (type: string) => /^application\/(?:[\w.-]+\+)?json$/i.test(type.split(';')[0]!.trim());

/** The declared media type that `contentType` matches: itself, `type/*`, or `*\/*`. */
function declaredMedia<T>(content: Record<string, T>, contentType: string): T | undefined {
  // By essence: a key may carry parameters (application/json; charset=utf-8).
  const lower = Object.fromEntries(Object.entries(content).map(([type, media]) => [type.split(';')[0]!.trim().toLowerCase(), media]));
  return lower[contentType] ?? lower[`${contentType.split('/')[0]}/*`] ?? lower['*/*'];
}

/**
 * Checks observed responses against a contract, operation by operation: the status is one the
 * operation declares (itself, `4XX`, or `default`), every declared header that is required is
 * there and every one there is valid, the content type is declared and a JSON body matches its
 * schema, and a deprecated operation's answers carry Deprecation, and Sunset and Link where the
 * contract names a sunset (`x-sunset`) and a successor (`x-successor`). Returns one sentence per
 * violation. A service adds its own rules by extending it.
 */
export class ContractChecker {
  readonly schemas: ContractSchemas;
  private readonly operations = new Map<string, Operation>();

  constructor(
    protected readonly doc: OpenApiDocument,
    private readonly options: CheckerOptions = {},
  ) {
    this.schemas = new ContractSchemas(doc);
    for (const op of listOperations(doc)) {
      this.operations.set(op.name, op);
      if (op.operationId) this.operations.set(op.operationId, op);
    }
  }

  /** Validates `value` against a schema of the contract, returning readable errors. */
  validate(schema: unknown, value: unknown): string[] {
    return this.schemas.errors(schema, value);
  }

  /**
   * Checks a response of an operation (its name or operationId). The 501 of a handler not
   * written yet is reported as just that, not as a status the contract does not declare.
   */
  checkResponse(operationName: string, observed: ObservedResponse): string[] {
    const op = this.operations.get(operationName);
    if (!op) return [`operation ${operationName} is not in the contract`];
    const unimplemented = this.notImplemented(operationName, observed);
    if (unimplemented) return [unimplemented];
    const responses = (op.raw.responses ?? {}) as Record<string, unknown>;
    const raw = responses[String(observed.status)] ?? responses[`${String(observed.status)[0]}XX`] ?? responses.default;
    if (!raw) {
      return [`status ${observed.status} is not declared for ${op.name} (declared: ${Object.keys(responses).join(', ')})`];
    }
    const response = resolveRef<ResponseObject>(this.doc, raw);
    // An answer to HEAD has the headers of the GET it stands for, and no body.
    const violations = [...this.checkHeaders(response, observed), ...(op.method === 'head' ? [] : this.checkBody(response, observed))];
    if (op.deprecated) violations.push(...this.checkDeprecation(op, observed));
    return violations;
  }

  /**
   * What to write when `observed` is the stub's answer (`contract-kit generate` wrote it; its
   * handler is not written yet): a 501 whose error body carries the code `not_implemented`, of an
   * operation that does not declare 501 itself. Else null.
   */
  notImplemented(operationName: string, observed: ObservedResponse): string | null {
    const op = this.operations.get(operationName);
    if (!op || observed.status !== 501 || '501' in op.responses) return null;
    // The stub's error body names its code; an answer to HEAD has no body to name it.
    if (op.method !== 'head' && !/"not_implemented"/.test(observed.text)) return null;
    return this.options.stubHint?.(op) ?? `${op.name} is not implemented yet: its handler answers 501 until it is written`;
  }

  /**
   * Checks an answer no operation declares (a path outside the contract, a method its path does
   * not have): here, that a JSON body parses. A service with a fixed error body checks it too.
   */
  checkErrorResponse(observed: ObservedResponse): string[] {
    const contentType = observed.headers.get('content-type')?.split(';')[0]?.trim() ?? '';
    if (!isJsonMediaType(contentType)) return [];
    try {
      JSON.parse(observed.text);
      return [];
    } catch {
      return [`body is not valid JSON: ${JSON.stringify(observed.text.slice(0, 200))}`];
    }
  }

  protected checkHeaders(response: ResponseObject, observed: ObservedResponse): string[] {
    const violations: string[] = [];
    for (const [name, rawHeader] of Object.entries(response.headers ?? {})) {
      if (name.toLowerCase() === 'content-type') continue;
      const header = resolveRef<HeaderObject>(this.doc, rawHeader);
      const value = observed.headers.get(name);
      if (value === null) {
        if (header.required) violations.push(`missing header ${name}`);
        continue;
      }
      if (!header.schema) continue;
      const schema = resolveRef<{ type?: unknown }>(this.doc, header.schema);
      const typed =
        (schema.type === 'integer' || schema.type === 'number') && value.trim() !== '' && Number.isFinite(Number(value))
          ? Number(value)
          : schema.type === 'boolean' && (value === 'true' || value === 'false')
            ? value === 'true'
            : value;
      for (const error of this.validate(header.schema, typed)) {
        violations.push(`header ${name}: ${JSON.stringify(value)} ${error.replace('(root) ', '')}`);
      }
    }
    return violations;
  }

  protected checkBody(response: ResponseObject, observed: ObservedResponse): string[] {
    // HTTP gives these statuses no body, whatever the contract declares for them.
    if ((observed.status === 204 || observed.status === 304) && observed.text.length === 0) return [];
    // A key that is no media type (a property's name, as some contracts write) declares nothing.
    const content = response.content && Object.fromEntries(Object.entries(response.content).filter(([key]) => isMediaTypeKey(key)));
    if (!content || Object.keys(content).length === 0) {
      return observed.text.length > 0 ? [`body must be empty for status ${observed.status}, got ${observed.text.length} bytes`] : [];
    }
    const contentType = observed.headers.get('content-type')?.split(';')[0]?.trim().toLowerCase() ?? '';
    const media = declaredMedia(content, contentType);
    if (!media) {
      return [`content type "${contentType}" is not declared for status ${observed.status} (declared: ${Object.keys(content).join(', ')})`];
    }
    if (media.itemSchema !== undefined && isOpenApi32(this.doc)) return this.checkStream(media, contentType, observed);
    if (!isJsonMediaType(contentType)) return [];
    let body: unknown;
    try {
      body = JSON.parse(observed.text);
    } catch {
      return [`body is not valid JSON: ${JSON.stringify(observed.text.slice(0, 200))}`];
    }
    return media.schema === undefined ? [] : this.validate(media.schema, body).map((e) => `body ${e}`);
  }

  /**
   * A streamed answer (OpenAPI 3.2 `itemSchema`): each item read, against itemSchema (an SSE
   * event's JSON `data` against its contentSchema too), and a stream that failed rather than ended.
   */
  private checkStream(media: MediaObject, contentType: string, observed: ObservedResponse): string[] {
    const framing = framingOf(contentType);
    if (framing === undefined) return [];
    const items = streamItems(framing, observed.text, observed.stream?.ended !== false);
    const json = framing === 'sse' ? sseJsonContentSchema(this.doc, media.itemSchema) : undefined;
    const jsonData = framing === 'sse' && sseDataIsJson(this.doc, media.itemSchema);
    const violations = items.flatMap((read, i) => {
      if ('wrong' in read) return [`item ${i + 1} ${read.wrong}`];
      let item = read.item;
      if (jsonData) {
        try {
          item = { ...(item as object), data: JSON.parse((item as { data?: string }).data ?? '') as unknown };
        } catch {
          return [`item ${i + 1}'s data is no JSON, which its schema says it is`];
        }
      }
      const found = this.validate(media.itemSchema, item).map((e) => `item ${i + 1} ${e}`);
      const text = (read.item as { data?: unknown }).data;
      if (found.length > 0 || json === undefined || typeof text !== 'string') return found;
      try {
        return this.validate(json, JSON.parse(text)).map((e) => `item ${i + 1}'s data ${e}`);
      } catch {
        return [`item ${i + 1}'s data is no JSON, which its contentMediaType says it is`];
      }
    });
    if (observed.stream?.failed !== undefined)
      violations.push(`the stream failed after ${items.length} item(s) instead of ending: ${observed.stream.failed}`);
    return violations;
  }

  protected checkDeprecation(op: Operation, observed: ObservedResponse): string[] {
    const violations: string[] = [];
    const deprecation = observed.headers.get('Deprecation');
    if (!deprecation || !/^@-?\d+$/.test(deprecation)) {
      violations.push(`deprecated operation: Deprecation header must be an RFC 9745 date (@<seconds>), got ${JSON.stringify(deprecation)}`);
    }
    const sunset = observed.headers.get('Sunset');
    const expected = op.sunset ? new Date(op.sunset).toUTCString() : null;
    if (expected !== null && sunset !== expected) {
      violations.push(`deprecated operation: Sunset header must be ${JSON.stringify(expected)}, got ${JSON.stringify(sunset)}`);
    }
    const link = observed.headers.get('Link');
    if (op.successor && (!link || !/rel="?successor-version"?/.test(link))) {
      violations.push(`deprecated operation: Link header with rel="successor-version" is missing (got ${JSON.stringify(link)})`);
    }
    return violations;
  }
}
