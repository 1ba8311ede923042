// Written by `contract-kit generate` from openapi.yaml. Do not edit it by hand: run it again.

import createClient, { type ClientOptions } from 'openapi-fetch';
import type { MaybeOptionalInit } from 'openapi-fetch';
import type { paths } from './openapi.js';
import { stream, type StreamOptions } from './streams.js';

/** A typed client of the contract (openapi-fetch): each call returns { data, error, response }. */
export const createApiClient = (baseUrl: string, options: Omit<ClientOptions, 'baseUrl'> = {}) => createClient<paths>({ ...options, baseUrl });

/**
 * Each stream of the contract (OpenAPI 3.2 itemSchema) by its operation's name: a streamed answer
 * is an async iterable of its items, typed from itemSchema (leaving the loop ends the request);
 * a streamed request is sent from an iterable of its items.
 */
export function createStreams(client: ReturnType<typeof createClient<paths>>) {
  return {
    /** GET /pets/feed: its 200 answer's text/event-stream, item by item, resumed from the last event after an end or a failure. */
    followPets: (init?: MaybeOptionalInit<paths["/pets/feed"], "get">, options?: StreamOptions) =>
      stream<paths["/pets/feed"]["get"]['responses']["200"]['content']["text/event-stream"]>(
        (headers, signal) => client.GET("/pets/feed", { ...init, params: { ...init?.params, header: { ...init?.params?.header, ...headers } }, signal, parseAs: 'stream' } as never),
        'sse',
        true,
        options,
      ),
  };
}
