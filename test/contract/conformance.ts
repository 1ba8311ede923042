import { ContractChecker as KitChecker, type ObservedResponse } from 'contract-kit/testing';
import { notImplementedHint } from '../../src/service/http/error-body.js';
import { resolveRef, type OpenApiDocument } from '../../src/contract/load-spec.js';

export type { ObservedResponse } from 'contract-kit/testing';

/** Headers every response carries, whatever its status (the contract's introduction). */
export const RATE_LIMIT_HEADERS = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'] as const;

const ERROR_SCHEMA = { $ref: '#/components/schemas/Error' };

/**
 * contract-kit's checker (status, headers, content type, body, deprecation headers), with the
 * Animal Store's own rules: an Error body repeats the HTTP status and names in `details[].field`
 * only the places ErrorDetail.field's description lists; an answer no operation declares (an
 * unknown path, a wrong method) is an Error body with the rate-limit headers and a request id;
 * a stub's 501 names the handler file to write.
 */
export class ContractChecker extends KitChecker {
  /** The places an Error's `details[].field` may name (`body`, `query`, …): those the description of ErrorDetail.field lists. */
  private readonly fieldPlaces: string[];

  constructor(doc: OpenApiDocument) {
    super(doc, { stubHint: (op) => notImplementedHint(op.operationId ?? op.name) });
    const field = resolveRef<{ properties?: { field?: { description?: string } } }>(doc, doc.components?.schemas?.ErrorDetail);
    this.fieldPlaces = [...(field.properties?.field?.description ?? '').matchAll(/`([a-z]+)`/g)].map((match) => match[1]!);
  }

  override checkErrorResponse(observed: ObservedResponse): string[] {
    const violations: string[] = [];
    for (const name of [...RATE_LIMIT_HEADERS, 'X-Request-Id']) {
      if (observed.headers.get(name) === null) violations.push(`missing header ${name}`);
    }
    violations.push(...this.checkBody({ content: { 'application/json': { schema: ERROR_SCHEMA } } }, observed));
    return violations;
  }

  protected override checkBody(response: { content?: Record<string, { schema?: unknown }> }, observed: ObservedResponse): string[] {
    const violations = super.checkBody(response, observed);
    const contentType = observed.headers.get('content-type')?.split(';')[0]?.trim().toLowerCase() ?? '';
    const schema = response.content?.[contentType]?.schema;
    if (violations.length > 0 || !JSON.stringify(schema ?? null).includes('"#/components/schemas/Error"')) return violations;
    const body = JSON.parse(observed.text) as { status?: unknown; details?: unknown };
    if (body.status !== observed.status) {
      violations.push(`Error body status ${String(body.status)} differs from the HTTP status ${observed.status}`);
    }
    if (Array.isArray(body.details)) {
      for (const detail of body.details as { field?: unknown }[]) {
        const field = String(detail.field);
        if (!this.fieldPlaces.includes(field.split('.')[0]!))
          violations.push(
            `details field ${JSON.stringify(field)} is in none of the places ErrorDetail.field lists (${this.fieldPlaces.join(', ')})`,
          );
      }
    }
    return violations;
  }
}
