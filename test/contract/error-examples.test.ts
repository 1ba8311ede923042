// The contract's examples of error answers are what a client reads (the reference, the mock's
// answers), so each is checked against what the service answers. A 400 example's every detail
// is sent, on an operation it fits, as the values that break its field one keyword at a time:
// the service must say the example's words of that field for one of them. Every other example
// is provoked by its request below, by name; one added to the contract is not checked until it
// has one, and one renamed fails.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handlers } from '../../generated/handlers.js';
import { loadSpec, resolveRef } from '../../src/contract/load-spec.js';
import { listOperations, type Operation } from 'contract-kit';
import { namedExamples, operationInputs, unfitFields } from '../../lint/response-examples.js';
import type { Handlers } from '../../src/service/http/handler-types.js';
import { parseKey } from '../../src/service/keys/key-format.js';
import { IDEMPOTENCY_TIMING } from '../../src/service/store/idempotency.js';
import { StoreUnavailableError } from '../../src/service/store/store-unavailable-error.js';
import { exampleRequest } from '../support/example-requests.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

type Schema = Record<string, unknown>;
type ErrorBody = { code: string; message: string; status: number; details?: { field: string; message: string }[] };

const doc = loadSpec();
const resolve = (value: unknown) => resolveRef(doc, value);
const operations = listOperations(doc);
const operationOf = (op: Operation) => doc.paths[op.path]![op.method] as { responses: Record<string, unknown>; requestBody?: unknown };

/** Every named example of the operations' 4xx and 5xx answers, by name: its body, statuses, and the operations that give it. */
function errorExamples(): Map<string, { value: ErrorBody; statuses: Set<number>; operations: Operation[] }> {
  const found = new Map<string, { value: ErrorBody; statuses: Set<number>; operations: Operation[] }>();
  for (const op of operations) {
    for (const [status, raw] of Object.entries(operationOf(op).responses)) {
      if (!/^[45]\d\d$/.test(status)) continue;
      for (const [name, example] of namedExamples(resolveRef<Schema>(doc, raw), resolve)) {
        const entry = found.get(name) ?? { value: example.value as ErrorBody, statuses: new Set<number>(), operations: [] };
        entry.statuses.add(Number(status));
        if (!entry.operations.includes(op)) entry.operations.push(op);
        found.set(name, entry);
      }
    }
  }
  return found;
}

/** The schema of a field as a 400 names it (`query.limit`, `body.name`), and whether the request must have it. */
function fieldSchema(op: Operation, field: string): { schema: Schema; required: boolean } | undefined {
  const [where, ...path] = field.split('.');
  if (where === 'body') {
    const body = resolveRef<{ content?: Record<string, { schema?: unknown }> }>(doc, operationOf(op).requestBody);
    let schema = resolveRef<Schema | undefined>(doc, body?.content?.['application/json']?.schema);
    let required = false;
    for (const part of path) {
      required = ((schema?.required as string[] | undefined) ?? []).includes(part);
      schema = resolveRef<Schema | undefined>(doc, (schema?.properties as Schema | undefined)?.[part]);
    }
    return schema && { schema, required };
  }
  const pathItem = doc.paths[op.path]!;
  const parameter = [...((pathItem.parameters as unknown[]) ?? []), ...((operationOf(op) as { parameters?: unknown[] }).parameters ?? [])]
    .map((p) => resolveRef<{ in: string; name: string; required?: boolean; schema?: unknown }>(doc, p))
    .find((p) => p.in === where && (where === 'header' ? p.name.toLowerCase() === path[0] : p.name === path[0]));
  return parameter && { schema: resolveRef<Schema>(doc, parameter.schema), required: parameter.required === true };
}

/** Values that each break `schema` by one keyword (undefined: the field left out, where it is required). */
function breakingValues({ schema, required }: { schema: Schema; required: boolean }): unknown[] {
  const values: unknown[] = required ? [undefined] : [];
  const number = (key: string) => (typeof schema[key] === 'number' ? schema[key] : undefined);
  if (schema.type === 'integer') values.push('abc', 1.5);
  if (schema.type === 'number') values.push('abc');
  if (schema.type === 'string') values.push(12345);
  if (number('minimum') !== undefined) values.push(number('minimum')! - 1);
  if (number('maximum') !== undefined) values.push(number('maximum')! + 1);
  if (number('exclusiveMinimum') !== undefined) values.push(number('exclusiveMinimum'));
  if (number('exclusiveMaximum') !== undefined) values.push(number('exclusiveMaximum'));
  if (number('minLength')) values.push('x'.repeat(number('minLength')! - 1));
  if (number('maxLength') !== undefined) values.push('x'.repeat(number('maxLength')! + 1));
  if (Array.isArray(schema.enum)) values.push('probe-not-one-of-them');
  // Those the pattern refuses of a few: a header takes neither a lone space nor NUL, but a letter or a dash.
  if (typeof schema.pattern === 'string')
    values.push(...[' ', '\u0000', '-', 'x'].filter((v) => !new RegExp(schema.pattern as string, 'u').test(v)));
  return values;
}

/** The operation with a sunset: its 410 after that date. */
const sunsetting = operations.find((op) => op.sunset !== null);

// Handlers that fail as the 500 and 503 examples say: a failure inside, a store out of reach.
const failing: Handlers = {
  ...handlers,
  listPets: async (input, context) => {
    if (input.query.status === 'sold') throw new Error('a failure inside the handler');
    if (input.query.status === 'pending') throw new StoreUnavailableError('the store did not answer');
    return handlers.listPets(input, context);
  },
};

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ handlers: failing });
});
afterAll(() => server?.close());

const send = (path: string, init: RequestInit = {}) => fetch(`${server.baseUrl}${path}`, init);
const bearer = async (plan: 'free' | 'pro' = 'pro') => ({ Authorization: `Bearer ${await server.newKey(plan)}` });
const json = { 'Content-Type': 'application/json' };

/** Sends `request` until its answer has `code`, at most `times` times; the last answer. */
async function until(code: string, times: number, request: () => Promise<Response>): Promise<Response> {
  let answer = await request();
  for (let i = 1; i < times && ((await answer.clone().json()) as ErrorBody).code !== code; i++) answer = await request();
  return answer;
}

/** The request that gets each example other than a 400's from the service, by the example's name. */
const PROVOKE: Record<string, () => Promise<Response>> = {
  UnauthorizedExample: () => send('/pets', { headers: { Authorization: 'Bearer not-a-key' } }),
  PetNotFoundExample: async () => send('/pets/42', { headers: await bearer() }),
  GoneExample: async () => {
    server.clock.set(sunsetting!.sunset!);
    try {
      return await send(sunsetting!.path.replace(/\{[^}]+\}/g, '1'), { headers: await bearer() });
    } finally {
      server.clock.set('2026-06-01T12:00:10Z');
    }
  },
  // Another instance's request holds the key.
  IdempotencyKeyInUseExample: async () => {
    const key = await server.newKey();
    const parsed = parseKey(key);
    const record = parsed.ok ? await server.store.findKeyByHash(parsed.hash) : undefined;
    await server.store.claimIdempotencyKey({ apiKeyId: record!.id, key: 'held' }, 'another instance', {
      now: new Date(server.clock.now()),
      ...IDEMPOTENCY_TIMING,
    });
    const headers = { Authorization: `Bearer ${key}`, ...json, 'Idempotency-Key': 'held' };
    return send('/pets', { method: 'POST', headers, body: '{"name":"Rex","categoryId":1}' });
  },
  IdempotencyKeyReusedExample: async () => {
    const headers = { ...(await bearer()), ...json, 'Idempotency-Key': 'once' };
    await send('/pets', { method: 'POST', headers, body: '{"name":"Rex","categoryId":1}' });
    return send('/pets', { method: 'POST', headers, body: '{"name":"Rex","categoryId":2}' });
  },
  PayloadTooLargeExample: async () =>
    send('/pets', { method: 'POST', headers: { ...(await bearer()), ...json }, body: JSON.stringify({ name: 'x'.repeat(20_000) }) }),
  RequestHeaderFieldsTooLargeExample: async () => send('/pets', { headers: { ...(await bearer()), 'X-Padding': 'x'.repeat(20_000) } }),
  UnsupportedMediaTypeExample: async () =>
    send('/pets', { method: 'POST', headers: { ...(await bearer()), 'Content-Type': 'text/plain' }, body: 'Rex' }),
  // A Free key's minute used up 30 s before the minute ends.
  RateLimitedExample: async () => {
    server.clock.set('2026-06-01T12:00:30Z');
    const headers = await bearer('free');
    return until('rate_limited', 100, () => send('/pets', { headers }));
  },
  // A Free key that keeps sending while refused, past the grace after its first refusal.
  KeyTemporarilyBannedExample: async () => {
    server.clock.set('2026-06-01T12:01:10Z');
    const headers = await bearer('free');
    await until('rate_limited', 100, () => send('/pets', { headers }));
    server.clock.advance(3_000);
    return until('key_temporarily_banned', 100, () => send('/pets', { headers }));
  },
  InternalErrorExample: async () => send('/pets?status=sold', { headers: await bearer() }),
  ServiceUnavailableExample: async () => send('/pets?status=pending', { headers: await bearer() }),
};

describe("the contract's error examples", () => {
  const examples = errorExamples();
  const refusals = [...examples].filter(([, { statuses }]) => statuses.has(400));

  it('name only examples the contract has', () => {
    expect(refusals.length).toBeGreaterThan(0);
    expect(Object.keys(PROVOKE).filter((name) => !examples.has(name))).toEqual([]);
  });

  for (const [name, { value, operations: giving }] of refusals) {
    it(`${name}: the service says what it says of each field, in a 400 with its code and message`, async () => {
      const headers = await bearer();
      const op = giving.find((candidate) => {
        const pathItem = doc.paths[candidate.path] as Schema;
        return unfitFields(value, operationInputs(pathItem, pathItem[candidate.method] as Schema, resolve)).length === 0;
      });
      expect(op, `${name} fits none of the operations that answer with it`).toBeDefined();
      for (const detail of value.details ?? []) {
        const found = fieldSchema(op!, detail.field);
        expect(found, `${op!.name} has no ${detail.field}`).toBeDefined();
        const said: string[] = [];
        for (const broken of breakingValues(found!)) {
          const request = exampleRequest(doc, op!, { field: detail.field, value: broken });
          // A value fetch cannot send in a header (a lone space, NUL) is no request.
          const answer = await send(request.path, { ...request.init, headers: { ...request.init.headers, ...headers } }).catch(
            (error: unknown) => {
              if (error instanceof TypeError && /header value/.test(error.message)) return undefined;
              throw error;
            },
          );
          if (answer?.status !== 400) continue;
          const body = (await answer.json()) as ErrorBody;
          expect({ code: body.code, message: body.message, status: body.status }).toEqual({
            code: value.code,
            message: value.message,
            status: 400,
          });
          said.push(...(body.details ?? []).filter((d) => d.field === detail.field).map((d) => d.message));
        }
        expect(said, `what ${op!.name} says of ${detail.field}`).toContain(detail.message);
      }
    });
  }

  for (const [name, { value, statuses }] of examples) {
    if (!(name in PROVOKE)) continue;
    it(`${name} is the body the service answers with (${[...statuses].join(', ')})`, async () => {
      const answer = await PROVOKE[name]!();
      expect(statuses).toContain(answer.status);
      expect(await answer.json()).toEqual(value);
    });
  }
});
