// Written by renderTypes from test/fixtures/notes-3.2.yaml (test/types/fixture-types.ts). Do not edit it by hand.

import createClient, { type ClientOptions } from 'openapi-fetch';
import type { FetchResponse, MaybeOptionalInit } from 'openapi-fetch';
import type { components, paths } from './openapi.js';
import { stream, type StreamOptions, framedBody } from './streams.js';

/** A typed client of the contract (openapi-fetch): each call returns { data, error, response }. */
export const createApiClient = (baseUrl: string, options: Omit<ClientOptions, 'baseUrl'> = {}) => createClient<paths>({ ...options, baseUrl });

/**
 * Each stream of the contract (OpenAPI 3.2 itemSchema) by its operation's name: a streamed answer
 * is an async iterable of its items, typed from itemSchema (leaving the loop ends the request);
 * a streamed request is sent from an iterable of its items.
 */
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
    /** POST /notes/import: its request body's application/jsonl, sent item by item from `items` (an array whole; an async iterable as it comes). */
    importNotes: (items: Iterable<NonNullable<paths["/notes/import"]["post"]['requestBody']>['content']["application/jsonl"]> | AsyncIterable<NonNullable<paths["/notes/import"]["post"]['requestBody']>['content']["application/jsonl"]>, init?: Omit<MaybeOptionalInit<paths["/notes/import"], "post">, 'body'>) =>
      client.POST("/notes/import", {
        ...init,
        body: framedBody(items, 'lines'),
        bodySerializer: (body: unknown) => body,
        headers: { ...init?.headers, 'Content-Type': "application/jsonl" },
        duplex: 'half',
      } as never),
  };
}

/** The operations of methods openapi-fetch calls by no name (OpenAPI 3.2's QUERY, additionalOperations), by their names: each returns { data, error, response }. */
export const createOperations = (client: ReturnType<typeof createClient<paths>>) => ({
  /** QUERY /notes */
  queryNotes: (init?: MaybeOptionalInit<components["pathItems"]["QUERY /notes"], "post">) =>
    client.request("query" as never, "/notes" as never, init as never) as unknown as Promise<
      FetchResponse<components["pathItems"]["QUERY /notes"]["post"], NonNullable<typeof init>, `${string}/${string}`>
    >,
  /** LINK /notes/{noteId} */
  linkNote: (init: MaybeOptionalInit<components["pathItems"]["LINK /notes/{noteId}"], "post">) =>
    client.request("link" as never, "/notes/{noteId}" as never, init as never) as unknown as Promise<
      FetchResponse<components["pathItems"]["LINK /notes/{noteId}"]["post"], NonNullable<typeof init>, `${string}/${string}`>
    >,
});
