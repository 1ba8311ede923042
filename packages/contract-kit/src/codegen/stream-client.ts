import { readFileSync } from 'node:fs';
import type { OpenApiDocument } from '../contract/document.js';
import { isAddedMethod } from '../contract/methods.js';
import type { Operation } from '../contract/operations.js';
import { sseDataIsJson } from '../contract/openapi-3.2.js';
import { streamedAnswers } from '../server/stream-media.js';

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

/**
 * What generate adds for a contract with streamed answers: `streams.ts` (the reader), and
 * `createStreams(client)` for client.ts, each streamed operation typed from its itemSchema;
 * null for a contract without them.
 */
export function streamClient(doc: OpenApiDocument, operations: readonly Operation[]): { reader: string; client: string } | null {
  const streamed = streamedOperations(doc, operations);
  if (streamed.length === 0) return null;
  const entries = streamed.map(({ op, status, type, framing, resumable, jsonData }) => {
    const path = JSON.stringify(op.path);
    const method = JSON.stringify(op.method);
    const required = op.parameters.some((p) => p.required) || op.requestBody?.required === true;
    const item = `paths[${path}][${method}]['responses'][${JSON.stringify(status)}]['content'][${JSON.stringify(type)}]`;
    // Where the stream resumes goes in as the Last-Event-ID parameter, over the one the call gave.
    const request = resumable
      ? `{ ...init, params: { ...init?.params, header: { ...init?.params?.header, ...headers } }, signal, parseAs: 'stream' }`
      : `{ ...init, signal, parseAs: 'stream' }`;
    return (
      `    /** ${op.method.toUpperCase()} ${op.path.replace(/\*\//g, '*\\/')}: its ${status} answer's ${type}, item by item${resumable ? ', resumed from the last event after an end or a failure' : ''}. */\n` +
      `    ${op.name}: (init${required ? '' : '?'}: MaybeOptionalInit<paths[${path}], ${method}>, options?: StreamOptions) =>\n` +
      `      stream<${item}>(\n` +
      `        (${resumable ? 'headers' : '_headers'}, signal) => client.${op.method.toUpperCase()}(${path}, ${request} as never),\n` +
      `        '${framing}',\n` +
      `        ${String(resumable)},\n` +
      `        ${jsonData ? '{ ...options, jsonData: true }' : 'options'},\n` +
      `      ),\n`
    );
  });
  return {
    reader: readFileSync(READER, 'utf8'),
    client:
      "\n/** Each streamed answer (OpenAPI 3.2 itemSchema) by its operation's name: an async iterable of its items, typed from itemSchema; leaving the loop ends the request. */\n" +
      'export function createStreams(client: ReturnType<typeof createClient<paths>>) {\n' +
      `  return {\n${entries.join('')}  };\n}\n`,
  };
}
