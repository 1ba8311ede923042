import { XMLBuilder } from 'fast-xml-parser';
import { resolveRef, type OpenApiDocument } from '../contract/document.js';
import type { Operation } from '../contract/operations.js';
import { ContractSchemas } from '../testing/schemas.js';
import { ErrorBodyBuilder, type ErrorFacts } from './error-bodies.js';
import { essenceOf, kindOf } from './media-types.js';
import { HttpProblem, problemDetails, type ProblemResponse } from './problems.js';

/** How the answers of one declared error response are made. */
type Plan =
  /** Declared without content: no body. */
  | { kind: 'empty' }
  /**
   * JSON in `contentType` (or XML, `xml` naming its root element): RFC 9457's body where the
   * schema takes it (or there is none), else built from `schema`.
   */
  | { kind: 'json'; contentType: string; schema: unknown; rfc9457: boolean; xml?: string }
  /** `text/*`: the problem's message. */
  | { kind: 'text'; contentType: string }
  /** RFC 9457 problem details: nothing else fits (`why`). */
  | { kind: 'problem'; why: string };

/** A declared response: the operation's content by media type. */
type Declared = { content: Record<string, { schema?: unknown }> };

/** The problems a response is tried with at start, by the status or range it is declared for. */
function trials(statusKey: string): HttpProblem[] {
  const status = /^\d{3}$/.test(statusKey) ? Number(statusKey) : /^[1-5]XX$/i.test(statusKey) ? Number(statusKey[0]) * 100 : 0;
  const statuses = status === 0 ? [400, 401, 404, 500] : [status];
  return statuses.map(
    (s) =>
      new HttpProblem(
        s,
        s === 400 ? 'invalid_request' : 'error',
        'A trial problem.',
        s === 400 ? [{ field: 'query.limit', message: 'must be a number' }] : [],
      ),
  );
}

const XML = new XMLBuilder({ format: true });
/** A media type of bytes: an image, a sound, a film, a font, a model, an archive or a PDF. */
const isBytes = (type: string) => /^(image|audio|video|font|model)\/|^application\/(octet-stream|pdf|zip)$/i.test(essenceOf(type) ?? type);
const isJsonType = (type: string) => /^application\/(?:[\w.-]+\+)?json$|^\*\/\*$|^application\/\*$/i.test(type);

/**
 * The error answers of a contract as it declares them: for each operation's error statuses (its
 * own, `4XX`/`5XX` or `default`) a body built from the schema declared for it, in its media type
 * (see ErrorBodyBuilder), checked at start against that schema with the problems the status
 * stands for; RFC 9457 problem details where no body the kit can build fits. Errors no operation
 * took (a path outside the contract) take the contract's most common error response for their status.
 */
export class ContractErrors {
  private readonly builder: ErrorBodyBuilder;
  private readonly schemas: ContractSchemas;
  private readonly plans = new Map<Declared, Plan>();
  private readonly shared = new Map<string, Declared>();

  constructor(
    private readonly doc: OpenApiDocument,
    operations: Operation[],
  ) {
    this.schemas = new ContractSchemas(doc);
    this.builder = new ErrorBodyBuilder(doc, (schema) => this.schemas.sample(schema));
    const counts = new Map<string, Map<Declared, number>>();
    for (const op of operations) {
      for (const [statusKey, response] of Object.entries(op.responses)) {
        if (!/^[45]|^default$/i.test(statusKey)) continue;
        if (!this.plans.has(response)) this.plans.set(response, this.plan(`${op.name} ${statusKey}`, statusKey, response));
        const byResponse = counts.get(statusKey.toUpperCase()) ?? new Map<Declared, number>();
        byResponse.set(response, (byResponse.get(response) ?? 0) + 1);
        counts.set(statusKey.toUpperCase(), byResponse);
      }
    }
    for (const [statusKey, byResponse] of counts) {
      this.shared.set(statusKey, [...byResponse].sort((a, b) => b[1] - a[1])[0]![0]);
    }
  }

  /** The answer to `problem` as `op` (or, for none, the contract) declares it; null: no body. */
  answer(problem: HttpProblem, op: Operation | undefined, instance: string): ProblemResponse | null {
    const declared = this.declared(problem.status, op);
    const plan = declared && this.plans.get(declared);
    if (!plan || plan.kind === 'problem') return problemDetails(problem, { contentType: 'application/problem+json', instance });
    if (plan.kind === 'empty') return null;
    if (plan.kind === 'text') return { contentType: plan.contentType, body: problem.message };
    const rfc9457 = () => problemDetails(problem, { contentType: plan.contentType, instance }).body;
    const body = plan.rfc9457 ? rfc9457() : (this.builder.build(plan.schema, { problem, instance }) ?? rfc9457());
    if (plan.xml !== undefined)
      return { contentType: plan.contentType, body: `<?xml version="1.0" encoding="UTF-8"?>\n${XML.build({ [plan.xml]: body })}` };
    // A string is sent as it is (see ProblemFormatter): one that is the JSON body is written as JSON.
    return { contentType: plan.contentType, body: typeof body === 'string' ? JSON.stringify(body) : body };
  }

  /** In a line: how many declared error responses are answered how. */
  summary(): string {
    const kinds = { schema: 0, rfc9457: 0, text: 0, empty: 0, problem: 0 };
    const why: string[] = [];
    for (const plan of this.plans.values()) {
      kinds[plan.kind === 'json' ? (plan.rfc9457 ? 'rfc9457' : 'schema') : plan.kind]++;
      if (plan.kind === 'problem' && why.length < 3) why.push(plan.why);
    }
    const total = this.plans.size;
    const parts = [
      ...(kinds.schema > 0 ? [`${kinds.schema} built from their schemas`] : []),
      ...(kinds.rfc9457 > 0 ? [`${kinds.rfc9457} as RFC 9457 problem details, which their schemas take`] : []),
      ...(kinds.text > 0 ? [`${kinds.text} as text`] : []),
      ...(kinds.empty > 0 ? [`${kinds.empty} without a body, as declared`] : []),
      ...(kinds.problem > 0
        ? [`${kinds.problem} as RFC 9457 problem details in their stead, since no body the kit builds fits (${why.join('; ')})`]
        : []),
    ];
    return total === 0 ? 'no declared error response' : `${total} declared error response${total === 1 ? '' : 's'}: ${parts.join(', ')}`;
  }

  /** Whether some declared error response is answered as RFC 9457 problem details for want of a body that fits. */
  get fallsBack(): boolean {
    return [...this.plans.values()].some((plan) => plan.kind === 'problem');
  }

  private declared(status: number, op: Operation | undefined): Declared | undefined {
    const range = `${String(status)[0]}XX`;
    if (op) return op.responses[String(status)] ?? op.responses[range] ?? op.responses.default;
    return this.shared.get(String(status)) ?? this.shared.get(range) ?? this.shared.get('DEFAULT');
  }

  private plan(where: string, statusKey: string, response: Declared): Plan {
    const types = Object.keys(response.content);
    if (types.length === 0) return { kind: 'empty' };
    // JSON; else XML, or a vendor's media type (application/vnd.goa.error) whose schema is an object, written as JSON;
    // else text; else bytes (audio/mpeg: Swagger 2's `produces` given every status) whose schema is an object, as JSON.
    // A range (audio/*) names no media type to write it in.
    const objectIn = (type: string, bytes: boolean) =>
      !type.includes('*') && isBytes(type) === bytes && this.objectOfNoKind(type, response.content[type]!.schema);
    const text = types.find((type) => /^text\//i.test(type));
    const json =
      types.find((type) => isJsonType(essenceOf(type) ?? type)) ??
      types.find((type) => kindOf(essenceOf(type) ?? type) === 'xml' || objectIn(type, false)) ??
      (text ? undefined : types.find((type) => objectIn(type, true)));
    if (json) {
      const contentType = /^\*\/\*$|^application\/\*$/i.test(json) ? 'application/json' : json;
      const schema = response.content[json]!.schema;
      const xml =
        kindOf(essenceOf(json) ?? json) === 'xml'
          ? (resolveRef<{ xml?: { name?: string } } | undefined>(this.doc, schema)?.xml?.name ?? 'error')
          : undefined;
      const fits = (build: (facts: ErrorFacts) => unknown) => {
        for (const problem of trials(statusKey)) {
          const body = build({ problem, instance: '/trial' });
          const errors =
            body === undefined
              ? [`${this.builder.missing} is required, and neither the problem nor the contract gives it a value`]
              : this.schemas.errors(schema, body);
          if (errors.length > 0) return errors[0]!;
        }
        return null;
      };
      if (schema === undefined || fits(({ problem, instance }) => problemDetails(problem, { contentType, instance }).body) === null) {
        return { kind: 'json', contentType, schema, rfc9457: true, xml };
      }
      const misfit = fits((facts) => this.builder.build(schema, facts));
      if (misfit !== null) return { kind: 'problem', why: `${where} (${json}): ${misfit}` };
      return { kind: 'json', contentType, schema, rfc9457: false, xml };
    }
    if (text) return { kind: 'text', contentType: text };
    return { kind: 'problem', why: `${where}: ${types.join(', ')}, in which the kit writes no error` };
  }

  /** Whether `type` is of no kind the kit reads (neither JSON, XML, text nor a form) and `schema` an object's, which only JSON writes. */
  private objectOfNoKind(type: string, schema: unknown): boolean {
    if (kindOf(essenceOf(type) ?? type) !== 'binary') return false;
    const resolved = resolveRef<{ type?: unknown; properties?: unknown } | undefined>(this.doc, schema);
    return resolved?.type === 'object' || (resolved?.type === undefined && resolved?.properties !== undefined);
  }
}
