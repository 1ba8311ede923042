import { isOpenApi32, type OpenApiDocument } from '../contract/document.js';
import { framingOf, type Framing } from '../contract/openapi-3.2.js';
import type { MediaTypeObject, Operation } from '../contract/operations.js';
import { declaredContent, type HandlerResult } from './handlers.js';

/** Which media types of an operation are streams (OpenAPI 3.2 `itemSchema`) the kit frames or reads. */

/** An operation's streamed answers (OpenAPI 3.2 `itemSchema`), by status and media type (`200 text/event-stream`). */
export function streamedAnswers(doc: OpenApiDocument, op: Operation): Map<string, Framing> {
  const streams = new Map<string, Framing>();
  if (!isOpenApi32(doc)) return streams;
  for (const [status, response] of Object.entries(op.responses))
    for (const [type, media] of Object.entries(response.content)) {
      const framing = framingOf(type);
      if (media.itemSchema !== undefined && framing) streams.set(`${status} ${type}`, framing);
    }
  return streams;
}

/** An operation's streamed request bodies (OpenAPI 3.2 `itemSchema`) the kit reads, by media type: JSON Lines and JSON text sequences. */
export function streamedRequests(
  doc: OpenApiDocument,
  op: Operation,
): Map<string, { framing: Exclude<Framing, 'sse'>; itemSchema: unknown }> {
  const streams = new Map<string, { framing: Exclude<Framing, 'sse'>; itemSchema: unknown }>();
  if (!isOpenApi32(doc)) return streams;
  for (const [type, media] of Object.entries(op.requestBody?.content ?? {})) {
    const framing = framingOf(type);
    if (media.itemSchema !== undefined && framing && framing !== 'sse') streams.set(type, { framing, itemSchema: media.itemSchema });
  }
  return streams;
}

/** The declared response a status falls under: itself, else its range (`4XX`), else `default`. */
const declaredStatus = (op: Operation, status: number) =>
  [String(status), `${String(status)[0]}XX`, 'default'].find((key) => op.responses[key] !== undefined);

/** The stream a handler answered, by the status and media type it names (streamedAnswers); undefined for any other answer. */
export function streamedAnswerOf(
  op: Operation,
  streams: Map<string, Framing>,
  result: HandlerResult,
): { media: MediaTypeObject; framing: Framing; contentType: string } | undefined {
  const status = declaredStatus(op, Number(result.status));
  const contentType = result.contentType ?? declaredContent(op, Number(result.status))[0];
  if (status === undefined || contentType === undefined || result.body === undefined) return undefined;
  const framing = streams.get(`${status} ${contentType}`);
  return framing === undefined ? undefined : { media: op.responses[status]!.content[contentType]!, framing, contentType };
}
