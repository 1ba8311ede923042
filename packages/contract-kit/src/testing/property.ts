import fc from 'fast-check';
import type { OpenApiDocument } from '../contract/document.js';
import { listOperations, type Operation, type Parameter } from '../contract/operations.js';
import { isJsonMediaType, type ContractChecker } from './checker.js';
import { answerViolations, ConformanceViolation, described, send } from './answers.js';
import type { ConformanceCase } from './conformance.js';
import { withCredentials } from './credentials.js';
import { RequestPlanner, sentByFetch, setByClient, type PlannedRequest } from './requests.js';
import { ContractSchemas } from './schemas.js';
import { wireEdits } from './value-edits.js';
import { readingsOf, SchemaValues, toJsonText, UnsupportedSchemaError } from './values.js';

/**
 * Valid values of some parameters, by `in.name` (`query.cursor`), made from the schema's: for
 * values only the server can make (a cursor it issued), or that must differ from request to
 * request (an idempotency key).
 */
export type ValueOverrides = Record<string, (fromSchema: fc.Arbitrary<unknown>) => fc.Arbitrary<unknown>>;

/** A generated request: its parameters' texts and body, and what was broken in it (`query.limit maximum`), or null for a valid one. */
interface Generated {
  values: Map<Parameter, string | undefined>;
  body: string | undefined;
  broken: string | null;
}

const LONE_SURROGATE = /\p{Cs}/u;
/** What fetch sends unchanged as a header value: visible Latin-1, inner spaces and tabs. */
const SENDABLE_HEADER = /^(?:[\x21-\x7E\x80-\xFF](?:[\x20-\x7E\x80-\xFF\t]*[\x21-\x7E\x80-\xFF])?)?$/;

/** Whether a parameter's text reaches the server as it is: no lone surrogate in a URL, no empty, `.` or `..` path segment, a sendable header. */
function reaches(p: Parameter, text: string): boolean {
  if (p.in === 'header') return SENDABLE_HEADER.test(text);
  if (LONE_SURROGATE.test(text)) return false;
  return p.in !== 'path' || !['', '.', '..'].includes(text);
}

const isScalar = (v: unknown): v is string | number | boolean => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';

/** `request` with each parameter of `values` set to its text (or left out, for undefined); path parameters fill the path's template. */
function withParameters(request: PlannedRequest, values: Map<Parameter, string | undefined>): PlannedRequest {
  let { path } = request;
  const query = request.query.filter(([name]) => ![...values.keys()].some((p) => p.in === 'query' && p.name === name));
  const headers = { ...request.headers };
  for (const [p, text] of values) {
    if (p.in === 'path') path = path.replace(`{${p.name}}`, encodeURIComponent(text ?? ''));
    else if (p.in === 'query' && text !== undefined) query.push([p.name, text]);
    else if (p.in === 'header') {
      delete headers[p.name];
      if (text !== undefined) headers[p.name] = text;
    }
  }
  return { ...request, path, query, headers };
}

/**
 * The arbitraries of an operation: valid requests (each parameter, a required one always and an
 * optional one sometimes, and a JSON body, from their schemas by SchemaValues; other bodies as
 * the planner makes them) and invalid ones (a valid request with one parameter or the JSON body
 * edited so that its schema refuses it, or a required parameter left out). A string says why
 * there are none.
 */
function arbitrariesOf(
  op: Operation,
  planner: RequestPlanner,
  values: SchemaValues,
  overrides: ValueOverrides,
): { build: (g: Generated) => PlannedRequest; valid: fc.Arbitrary<Generated>; invalid?: fc.Arbitrary<Generated> } | string {
  const base = planner.valid(op);
  if (typeof base === 'string') return base;
  // A parameter that holds an API key is given the credential (withCredentials), not a value of its own.
  const generated = op.parameters.filter(
    (p) => p.in !== 'cookie' && !setByClient(p) && !planner.holdsKey(op, p) && p.type !== 'array' && p.type !== 'object',
  );
  const texts = new Map<Parameter, fc.Arbitrary<string>>();
  // Numbers as a client writes them: digits, no exponent (1e-7).
  const plainly = (v: string | number | boolean) => typeof v !== 'number' || !/e/i.test(String(v));
  for (const p of generated) {
    const override = overrides[`${p.in}.${p.name}`];
    const fromSchema = values.valid(p.schema);
    texts.set(
      p,
      (override ? override(fromSchema) : fromSchema)
        .filter(isScalar)
        .filter(plainly)
        .map(String)
        .filter((t) => reaches(p, t) && readingsOf(t) !== null),
    );
  }
  const jsonBody = Object.entries(op.requestBody?.content ?? {}).find(([type]) => isJsonMediaType(type));
  const bodySchema = jsonBody?.[1].schema;
  const bodies = jsonBody && bodySchema !== undefined ? values.valid(bodySchema) : undefined;

  // The planner's request with the path's template, and the parameters the arbitraries do not make.
  let path = op.urlPath;
  for (const p of op.parameters.filter((p) => p.in === 'path' && !generated.includes(p)))
    path = path.replace(`{${p.name}}`, encodeURIComponent(planner.parameterValue(p)![0]!));
  const template: PlannedRequest = { ...base, path };
  if (jsonBody) template.headers = { ...template.headers, 'Content-Type': jsonBody[0] };
  const build = (g: Generated): PlannedRequest => ({
    ...withParameters(template, g.values),
    ...(g.body === undefined ? {} : { body: g.body }),
  });

  const parameterValues = fc.tuple(
    ...generated.map((p) => (p.required || sentByFetch(p) ? texts.get(p)! : fc.option(texts.get(p)!, { nil: undefined }))),
  );
  const valid: fc.Arbitrary<Generated> = fc.tuple(parameterValues, bodies ?? fc.constant(undefined)).map(([chosen, body]) => ({
    values: new Map(generated.map((p, i) => [p, chosen[i]])),
    body: body === undefined ? undefined : toJsonText(body),
    broken: null,
  }));

  const families: fc.Arbitrary<Generated>[] = [];
  const changed = (g: Generated, p: Parameter, text: string | undefined) => new Map([...g.values, [p, text]]);
  for (const p of generated) {
    // A text its schema refuses however it is read, or none: then the parameter has no family.
    const known = planner.brokenParameter(p);
    if (known !== undefined) {
      const fallback = {
        text: known,
        kind: readingsOf(known)!
          .map((r) => values.refused(p.schema, r))
          .at(-1)!,
      };
      // An edit of a valid text, else the known one: a filter that nothing passes would never end.
      const refused = texts
        .get(p)!
        .chain((text) => wireEdits(text))
        .map((text) => {
          const readings = reaches(p, text) ? readingsOf(text) : null;
          const kinds = readings?.map((r) => values.refused(p.schema, r));
          return kinds && kinds.every((k) => k !== null) ? { text, kind: kinds.at(-1)! } : fallback;
        });
      families.push(
        fc.tuple(valid, refused).map(([g, b]) => ({ ...g, values: changed(g, p, b.text), broken: `${p.in}.${p.name} ${b.kind}` })),
      );
    }
    // A header fetch sends of itself cannot be left out of a request.
    if (p.required && p.in !== 'path' && !sentByFetch(p))
      families.push(valid.map((g) => ({ ...g, values: changed(g, p, undefined), broken: `${p.in}.${p.name} missing` })));
  }
  if (bodySchema !== undefined && planner.brokenJsonBody(op) !== undefined) {
    families.push(
      fc
        .tuple(valid, values.invalid(bodySchema, 'body'))
        .map(([g, b]) => ({ ...g, body: toJsonText(b.value), broken: `${b.field} ${b.kind}` })),
    );
  }
  return { build, valid, ...(families.length > 0 ? { invalid: fc.oneof(...families) } : {}) };
}

/** How much of a generated request a counterexample prints. */
const PRINTED_MAX = 1000;

/** How fast-check prints a generated request in a counterexample: as it goes on the wire. */
function printable(generated: Generated, build: (g: Generated) => PlannedRequest): Generated {
  const request = build(generated);
  return Object.defineProperty({ ...generated }, fc.toStringMethod, {
    value: () => {
      const text = `${described(request)} ${JSON.stringify(request.headers)}${typeof request.body === 'string' ? ` ${request.body}` : ''}`;
      // A request of many kilobytes is printed by its start and its length.
      const shown = text.length > PRINTED_MAX ? `${text.slice(0, PRINTED_MAX)}… (${text.length} characters)` : text;
      return `${shown}${generated.broken ? ` (${generated.broken})` : ''}`;
    },
    enumerable: false,
  });
}

/**
 * Property cases of a contract: for each operation, `runs` generated valid requests (fast-check,
 * values from the schemas) each answered as the contract declares and never refused, and `runs`
 * generated invalid ones (one input its schema refuses, or a required one left out) each refused
 * with 400 in the contract's shape. A failure is shrunk to the smallest request fast-check finds,
 * reported with the seed that replays it. An operation with a schema no value is made for is
 * skipped, saying which. `overrides` makes the values of parameters a schema alone cannot.
 */
export function propertyCases(
  doc: OpenApiDocument,
  { runs, seed, overrides = {} }: { runs: number; seed?: number; overrides?: ValueOverrides },
): ConformanceCase[] {
  const schemas = new ContractSchemas(doc);
  const planner = new RequestPlanner(doc, schemas);
  const values = new SchemaValues(schemas);
  const made = new Map<Operation, ReturnType<typeof arbitrariesOf>>();
  const arbitraries = (op: Operation) => {
    if (!made.has(op)) {
      try {
        made.set(op, arbitrariesOf(op, planner, values, overrides));
      } catch (error) {
        if (!(error instanceof UnsupportedSchemaError)) throw error;
        made.set(op, error.message);
      }
    }
    return made.get(op)!;
  };
  const property = (op: Operation, which: 'valid' | 'invalid'): ConformanceCase => ({
    name: `${op.name}: ${runs} generated ${which} requests are ${which === 'valid' ? 'answered as the contract declares' : 'refused with 400'}`,
    kind: 'property',
    operation: op.name,
    async run(target, checker: ContractChecker) {
      if (op.defect !== null) return `${op.name}: not served, for a defect of the contract: ${op.defect}`;
      const found = arbitraries(op);
      if (typeof found === 'string') return `${op.name}: ${found}`;
      const arbitrary = found[which];
      if (!arbitrary) return `${op.name}: it has no input a schema can refuse`;
      const placed = await planner.credentials(op, target.credential);
      if (typeof placed === 'string') return `${op.name}: ${placed}`;
      try {
        await fc.assert(
          fc.asyncProperty(
            arbitrary.map((g) => printable(g, found.build)),
            async (generated) => {
              const sent = withCredentials(found.build(generated), placed);
              const observed = await send(target, sent);
              const violations = answerViolations(checker, op, observed, generated.broken ? 400 : 'accepted');
              if (violations.length > 0) throw new ConformanceViolation(described(sent), observed, violations);
            },
          ),
          { numRuns: runs, seed, includeErrorInReport: true },
        );
      } catch (error) {
        // What is not a violation (a server that cannot be reached) is thrown as it is.
        const cause = (error as Error).cause;
        if (cause instanceof Error && !(cause instanceof ConformanceViolation)) throw cause;
        // fast-check's report, without the stack of where the violation was thrown.
        const report = (error as Error).message.replace(/\n\s+at .*(?=\n|$)/g, '');
        throw new ConformanceViolation(`${op.name}: a generated ${which} request breaks the contract`, undefined, [report]);
      }
      return undefined;
    },
  });
  return listOperations(doc).flatMap((op) => [property(op, 'valid'), property(op, 'invalid')]);
}
