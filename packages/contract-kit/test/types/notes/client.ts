// Written by renderTypes from test/fixtures/notes-3.2.yaml (test/types/fixture-types.ts). Do not edit it by hand.

import createClient, { type ClientOptions } from 'openapi-fetch';
import type { MaybeOptionalInit } from 'openapi-fetch';
import type { paths } from './openapi.js';
import { stream, type StreamOptions } from './streams.js';

/** A typed client of the contract (openapi-fetch): each call returns { data, error, response }. */
export const createApiClient = (baseUrl: string, options: Omit<ClientOptions, 'baseUrl'> = {}) => createClient<paths>({ ...options, baseUrl });

/** Each streamed answer (OpenAPI 3.2 itemSchema) by its operation's name: an async iterable of its items, typed from itemSchema; leaving the loop ends the request. */
export function createStreams(client: ReturnType<typeof createClient<paths>>) {
  return {
    /** GET /feed: its 200 answer's text/event-stream, item by item, resumed from the last event after an end or a failure. */
    followNotes: (init?: MaybeOptionalInit<paths["/feed"], "get">, options?: StreamOptions) =>
      stream<paths["/feed"]["get"]['responses']["200"]['content']["text/event-stream"]>(
        (headers, signal) => client.GET("/feed", { ...init, params: { ...init?.params, header: { ...init?.params?.header, ...headers } }, signal, parseAs: 'stream' } as never),
        'sse',
        true,
        options,
      ),
    /** GET /notes/export: its 200 answer's application/jsonl, item by item. */
    exportNotes: (init?: MaybeOptionalInit<paths["/notes/export"], "get">, options?: StreamOptions) =>
      stream<paths["/notes/export"]["get"]['responses']["200"]['content']["application/jsonl"]>(
        (_headers, signal) => client.GET("/notes/export", { ...init, signal, parseAs: 'stream' } as never),
        'lines',
        false,
        options,
      ),
  };
}
