import type { OpenApiDocument } from '../contract/document.js';
import { sseJsonContentSchema } from '../contract/openapi-3.2.js';
import type { Operation } from '../contract/operations.js';
import type { AnyHandler } from '../server/handlers.js';
import { streamedAnswers } from '../server/stream-media.js';
import { ContractSchemas } from '../testing/schemas.js';

/** How many items the mock sends in a streamed answer before it ends it. */
const MOCK_STREAM_ITEMS = 3;

/**
 * The items of a mock's streamed answer: the media type's examples its itemSchema takes, else
 * values made from itemSchema (json-schema-faker, each checked). An event's `data` whose schema
 * says it is JSON text (`contentMediaType` and `contentSchema`) is a value of its contentSchema,
 * as JSON.
 */
function mockItems(doc: OpenApiDocument, media: Record<string, unknown>, sse: boolean, schemas: ContractSchemas): unknown[] {
  const examples = [
    ...(media.example !== undefined ? [media.example] : []),
    ...Object.values((media.examples ?? {}) as Record<string, { value?: unknown; dataValue?: unknown }>).map((e) => e.dataValue ?? e.value),
  ].filter((item) => item !== undefined && schemas.errors(media.itemSchema, item).length === 0);
  if (examples.length > 0) return examples.slice(0, MOCK_STREAM_ITEMS);
  const content = sse ? sseJsonContentSchema(doc, media.itemSchema) : undefined;
  const items: unknown[] = [];
  for (let seed = 1; items.length < MOCK_STREAM_ITEMS && seed <= 10 * MOCK_STREAM_ITEMS; seed++) {
    const made = schemas.generate(media.itemSchema, seed) as Record<string, unknown>;
    if (content !== undefined && made && typeof made === 'object') {
      const value = schemas.generate(content, seed);
      if (schemas.errors(content, value).length > 0) continue;
      made.data = JSON.stringify(value);
    }
    if (schemas.errors(media.itemSchema, made).length === 0) items.push(made);
  }
  return items;
}

/**
 * The mock's handler of an operation whose first success answers a stream (OpenAPI 3.2
 * `itemSchema`) in its first media type: that stream, its items framed by the kit, unless the
 * request asks for another status (`Prefer: code=N`), which `otherwise` (Prism) answers, as it
 * answers every other operation.
 */
export function streamingMock(doc: OpenApiDocument, op: Operation, schemas: () => ContractSchemas, otherwise: AnyHandler): AnyHandler {
  const streams = streamedAnswers(doc, op);
  const success = Object.keys(op.responses)
    .filter((s) => /^2\d\d$/.test(s))
    .sort()[0];
  const type = success === undefined ? undefined : Object.keys(op.responses[success]!.content)[0];
  const framing = type === undefined ? undefined : streams.get(`${success} ${type}`);
  if (framing === undefined) return otherwise;
  let items: unknown[] | undefined;
  return (input, context) => {
    const prefer = context.request.headers.prefer;
    const asked = typeof prefer === 'string' ? /(?:^|[;,\s])code=(\d{3})\b/.exec(prefer)?.[1] : undefined;
    if (asked !== undefined && asked !== success) return otherwise(input, context);
    return {
      status: Number(success),
      contentType: type,
      body: (items ??= mockItems(doc, op.responses[success!]!.content[type!]!, framing === 'sse', schemas())),
    };
  };
}
