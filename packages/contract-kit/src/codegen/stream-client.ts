import { readFileSync } from 'node:fs';
import type { OpenApiDocument } from '../contract/document.js';
import { isAddedMethod } from '../contract/methods.js';
import type { Operation } from '../contract/operations.js';
import { sseDataIsJson } from '../contract/openapi-3.2.js';
import { streamedAnswers, streamedRequests } from '../server/stream-media.js';

/** The stream reader generate copies into a project beside client.ts (the package's client/streams.ts). */
const READER = new URL('../../client/streams.ts', import.meta.url);

/** A streamed operation as the client calls it: its first success that streams, in its first media type that does. */
interface StreamedOperation {
  op: Operation;
  status: string;
  type: string;
  framing: string;
  /** An SSE stream of an operation that takes Last-Event-ID: the client resumes it after it ends or fails. */
  resumable: boolean;
  /** An SSE stream whose events' data is JSON (sseDataIsJson): the client parses it. */
  jsonData: boolean;
}

/** The streamed operations the client calls: of a method openapi-fetch calls (not QUERY, nor an `additionalOperations` one). */
function streamedOperations(doc: OpenApiDocument, operations: readonly Operation[]): StreamedOperation[] {
  return operations.flatMap((op) => {
    if (isAddedMethod(op.method)) return [];
    const streams = streamedAnswers(doc, op);
    const found = [...streams].find(([key]) => /^2/.test(key));
    if (!found) return [];
    const [key, framing] = found;
    const [status = '', type = ''] = [key.slice(0, key.indexOf(' ')), key.slice(key.indexOf(' ') + 1)];
    const resumable = framing === 'sse' && op.parameters.some((p) => p.in === 'header' && p.name.toLowerCase() === 'last-event-id');
    const jsonData = framing === 'sse' && sseDataIsJson(doc, op.responses[status]?.content[type]?.itemSchema);
    return [{ op, status, type, framing, resumable, jsonData }];
  });
}

/** A streamed request as the client sends it: its first media type that streams; not for an operation that streams its answer too. */
function streamedRequestOperations(doc: OpenApiDocument, operations: readonly Operation[], answered: ReadonlySet<Operation>) {
  return operations.flatMap((op) => {
    if (isAddedMethod(op.method) || answered.has(op)) return [];
    const [found] = streamedRequests(doc, op);
    return found ? [{ op, type: found[0], framing: found[1].framing }] : [];
  });
}

const comment = (op: Operation) => `${op.method.toUpperCase()} ${op.path.replace(/\*\//g, '*\\/')}`;
/** Whether a call must give openapi-fetch's init: a required parameter (or body, unless it is sent apart). */
const initRequired = (op: Operation, body = true) => op.parameters.some((p) => p.required) || (body && op.requestBody?.required === true);

/**
 * What generate adds for a contract with streams: `streams.ts` (the reader, and the framing of
 * request items), and `createStreams(client)` for client.ts: each streamed answer an async
 * iterable typed from its itemSchema, each streamed request a call that sends an iterable of
 * items typed from its itemSchema. `imports` is what client.ts takes from streams.ts. Null for a
 * contract without streams.
 */
export function streamClient(
  doc: OpenApiDocument,
  operations: readonly Operation[],
): { reader: string; client: string; imports: string[] } | null {
  const streamed = streamedOperations(doc, operations);
  const sent = streamedRequestOperations(doc, operations, new Set(streamed.map(({ op }) => op)));
  if (streamed.length === 0 && sent.length === 0) return null;
  const entries = streamed.map(({ op, status, type, framing, resumable, jsonData }) => {
    const path = JSON.stringify(op.path);
    const method = JSON.stringify(op.method);
    const item = `paths[${path}][${method}]['responses'][${JSON.stringify(status)}]['content'][${JSON.stringify(type)}]`;
    // Where the stream resumes goes in as the Last-Event-ID parameter, over the one the call gave.
    const request = resumable
      ? `{ ...init, params: { ...init?.params, header: { ...init?.params?.header, ...headers } }, signal, parseAs: 'stream' }`
      : `{ ...init, signal, parseAs: 'stream' }`;
    return (
      `    /** ${comment(op)}: its ${status} answer's ${type}, item by item${resumable ? ', resumed from the last event after an end or a failure' : ''}. */\n` +
      `    ${op.name}: (init${initRequired(op) ? '' : '?'}: MaybeOptionalInit<paths[${path}], ${method}>, options?: StreamOptions) =>\n` +
      `      stream<${item}>(\n` +
      `        (${resumable ? 'headers' : '_headers'}, signal) => client.${op.method.toUpperCase()}(${path}, ${request} as never),\n` +
      `        '${framing}',\n` +
      `        ${String(resumable)},\n` +
      `        ${jsonData ? '{ ...options, jsonData: true }' : 'options'},\n` +
      `      ),\n`
    );
  });
  const sends = sent.map(({ op, type, framing }) => {
    const path = JSON.stringify(op.path);
    const method = JSON.stringify(op.method);
    const item = `NonNullable<paths[${path}][${method}]['requestBody']>['content'][${JSON.stringify(type)}]`;
    return (
      `    /** ${comment(op)}: its request body's ${type}, sent item by item from \`items\` (an array whole; an async iterable as it comes). */\n` +
      `    ${op.name}: (items: Iterable<${item}> | AsyncIterable<${item}>, init${initRequired(op, false) ? '' : '?'}: Omit<MaybeOptionalInit<paths[${path}], ${method}>, 'body'>) =>\n` +
      `      client.${op.method.toUpperCase()}(${path}, {\n` +
      `        ...init,\n` +
      `        body: framedBody(items, '${framing}'),\n` +
      `        bodySerializer: (body: unknown) => body,\n` +
      `        headers: { ...init?.headers, 'Content-Type': ${JSON.stringify(type)} },\n` +
      `        duplex: 'half',\n` +
      `      } as never),\n`
    );
  });
  return {
    reader: readFileSync(READER, 'utf8'),
    imports: [...(streamed.length > 0 ? ['stream', 'type StreamOptions'] : []), ...(sent.length > 0 ? ['framedBody'] : [])],
    client:
      "\n/**\n * Each stream of the contract (OpenAPI 3.2 itemSchema) by its operation's name: a streamed answer\n" +
      ' * is an async iterable of its items, typed from itemSchema (leaving the loop ends the request);\n' +
      ' * a streamed request is sent from an iterable of its items.\n */\n' +
      'export function createStreams(client: ReturnType<typeof createClient<paths>>) {\n' +
      `  return {\n${[...entries, ...sends].join('')}  };\n}\n`,
  };
}
