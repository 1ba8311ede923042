import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import type { Framing } from '../contract/openapi-3.2.js';
import { refusalOf } from './bodies.js';
import { HttpProblem, invalidRequest, type KitProblemCode } from './problems.js';
import { BodyReadError, decodedBody } from './read-body.js';
import { parseStrictJson, type JsonLimits } from './strict-json.js';

/**
 * Streamed request bodies (OpenAPI 3.2: a request media type with `itemSchema`): JSON Lines
 * and JSON text sequences read item by item as the handler asks for them.
 */

/** What a streamed body may hold. */
export interface StreamedBodyLimits extends JsonLimits {
  /** The largest item, in bytes (the body limit of other bodies). */
  itemBytes: number;
  /** The most the body may carry in all, once inflated. */
  totalBytes: number;
}

/** Whether a byte is JSON's whitespace. */
const isBlank = (byte: number) => byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;

/** `body.text` of an item's refusal, as the field of its item: `body[2].text` (positions from 0, as in a JSON array). */
const fieldOfItem = (field: string, index: number) =>
  field === 'body' || field.startsWith('body.') || field.startsWith('body[') ? `body[${index}]${field.slice(4)}` : field;

/**
 * The items of a streamed body as they arrive, each parsed strictly as JSON and refused by
 * `check` or not: the first item that cannot be read or is refused ends the iteration with a
 * 400 naming its position, an item larger than `itemBytes` or a body past `totalBytes` with a
 * 413. Blank lines are skipped.
 * @throws HttpProblem from the iteration
 */
export async function* requestItems(
  req: IncomingMessage,
  framing: Exclude<Framing, 'sse'>,
  check: (item: unknown) => string[],
  limits: StreamedBodyLimits,
): AsyncGenerator<unknown> {
  const separator = framing === 'seq' ? 0x1e : 0x0a;
  let index = 0;
  const tooLarge = () =>
    new HttpProblem<KitProblemCode>(
      413,
      'payload_too_large',
      `The request body's item ${index + 1} is larger than ${limits.itemBytes} bytes.`,
    );
  /** The item of `bytes` (blank: none), checked; its size is checked before anything else, whitespace included. */
  const item = (bytes: Buffer): { value: unknown } | undefined => {
    if (bytes.length > limits.itemBytes) throw tooLarge();
    if (bytes.every(isBlank)) return undefined;
    const at = index++;
    const parsed = parseStrictJson(bytes, limits);
    if ('refusal' in parsed)
      throw invalidRequest(
        parsed.refusal.details.map((d) => ({ ...d, field: fieldOfItem(d.field, at) })),
        `The request body's item ${at + 1} cannot be read: ${parsed.refusal.message}`,
      );
    const wrong = check(parsed.value);
    if (wrong.length > 0)
      throw invalidRequest(
        wrong.map((message) => ({ field: `body[${at}]`, message })),
        `The request body's item ${at + 1} is not as its schema says.`,
      );
    return { value: parsed.value };
  };
  let source: NodeJS.ReadableStream;
  try {
    source = decodedBody(req, limits.totalBytes);
  } catch (error) {
    throw refusalOf(error, limits.totalBytes);
  }
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let total = 0;
  try {
    // Left early (a refused item), the request is not destroyed: its answer is still to go out on its connection.
    for await (const chunk of (source as Readable).iterator({ destroyOnReturn: source !== req }) as AsyncIterable<Buffer>) {
      total += chunk.length;
      if (total > limits.totalBytes) throw new BodyReadError({ kind: 'too_large' });
      let start = 0;
      for (;;) {
        // Whitespace between items, blank lines included, is passed over byte by byte, never made an item.
        if (pending.length === 0) while (start < chunk.length && isBlank(chunk[start]!)) start++;
        const end = chunk.indexOf(separator, start);
        if (end < 0) break;
        const piece = chunk.subarray(start, end);
        // Concatenated only where an item spans chunks: a blank line costs a look at its bytes.
        const found = item(pending.length === 0 ? piece : Buffer.concat([...pending, piece]));
        pending = [];
        pendingBytes = 0;
        start = end + 1;
        if (found) yield found.value;
      }
      if (start < chunk.length) {
        pending.push(chunk.subarray(start));
        pendingBytes += chunk.length - start;
        // An item is refused once it passes its limit, not once it ends; blank or not.
        if (pendingBytes > limits.itemBytes) throw tooLarge();
      }
    }
  } catch (error) {
    throw refusalOf(
      error instanceof BodyReadError || error instanceof HttpProblem ? error : new BodyReadError({ kind: 'aborted', cause: error }),
      limits.totalBytes,
    );
  }
  const last = item(Buffer.concat(pending));
  if (last) yield last.value;
}
