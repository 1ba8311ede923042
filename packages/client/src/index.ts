/**
 * The typed client of the Animal Store API: openapi-fetch over the types generated from
 * openapi.yaml, behaving as the interface asks clients to behave.
 */
import createClient, { type Client, type Middleware } from 'openapi-fetch';
import { servers } from './generated/contract.js';
import type { components, paths } from './generated/openapi.js';
import { parseNextLink } from './link-header.js';
import { stream } from './generated/streams.js';
import { realClock, retryingFetch, type ClientClock, type RateLimitState, type RetryOptions } from './retrying-fetch.js';

export { apiVersion, servers } from './generated/contract.js';
export type { components, operations, paths } from './generated/openapi.js';
export type { ClientClock, RateLimitState, RetryOptions } from './retrying-fetch.js';
export { StreamRefused } from './generated/streams.js';

/** An animal in the store. */
export type Pet = components['schemas']['Pet'];
/** An animal to add. */
export type NewPet = components['schemas']['NewPet'];
/** Availability status of an animal. */
export type PetStatus = components['schemas']['PetStatus'];
/** The body of every error response: `code`, `message`, `status`, and `details` on a 400. */
export type ApiErrorBody = components['schemas']['Error'];
/** The deployments named in the contract. */
export type Environment = keyof typeof servers;

/** What a deprecated operation said about itself, passed to {@link AnimalStoreClientOptions.onDeprecation}. */
export interface DeprecationNotice {
  /** Method and path as the contract writes it, e.g. `GET /pets/{petId}`. */
  operation: string;
  /** The `Deprecation` header (RFC 9745), e.g. `@1767225600`. */
  deprecation: string;
  /** When the operation will be removed (the `Sunset` header, RFC 8594), or null if not given. */
  sunset: Date | null;
  /** The `Link` header naming the replacement, or null. */
  link: string | null;
}

/** Options of {@link createAnimalStoreClient}. Give `environment` or `baseUrl`. */
export interface AnimalStoreClientOptions {
  /** Which deployment of the contract's servers to call. @default 'production' when no baseUrl is given */
  environment?: Environment;
  /** A base URL with the version segment (e.g. `http://localhost:3000/v1`); overrides `environment`. */
  baseUrl?: string;
  /** The API key, sent as `Authorization: Bearer <apiKey>`. */
  apiKey: string;
  /** Retries on 429/503 and network errors. */
  retry?: RetryOptions;
  /**
   * Called once per deprecated operation the first time a response says it is deprecated.
   * @default process.emitWarning with type DeprecationWarning (console.warn outside Node)
   */
  onDeprecation?: (notice: DeprecationNotice) => void;
  /** The fetch to send requests with. @default globalThis.fetch */
  fetch?: (request: Request) => Promise<Response>;
  /** How to wait and tell the time. @default real timers */
  clock?: ClientClock;
}

/** Options of {@link AnimalStoreClient.listAllPets}. */
export interface ListAllPetsOptions {
  /** Only animals with this status. */
  status?: PetStatus;
  /** Animals asked for per request (1 to 100). @default 100 */
  pageSize?: number;
  /** Stops the iteration, and any wait, when aborted. */
  signal?: AbortSignal;
}

/** Options of {@link AnimalStoreClient.followPets}. */
export interface FollowPetsOptions {
  /** Where to resume: the `id` of the last animal received. @default the animals added from now on */
  lastEventId?: string;
  /** Stops the stream, and any wait to reconnect, when aborted. */
  signal?: AbortSignal;
}

/** The client: openapi-fetch's typed GET/POST/…, plus what the contract asks clients to do. */
export interface AnimalStoreClient extends Client<paths> {
  /** The `X-RateLimit-*` headers of the last response, or null before the first. */
  readonly rateLimit: RateLimitState | null;
  /**
   * Every animal (optionally of one status), by id ascending, one page after another by
   * following the `Link: rel="next"` header. Throws an {@link AnimalStoreError} when a page fails.
   */
  listAllPets(options?: ListAllPetsOptions): AsyncGenerator<Pet, void, undefined>;
  /**
   * The animals added, as the service adds them (GET /pets/feed's server-sent events), in id
   * order. After an end or a failure (5xx included) it asks again from the last event received
   * (Last-Event-ID; the first tells where the stream begins), so none is lost or repeated; a
   * refusal (401, 429 past its retries) throws `StreamRefused`.
   * Leaving the loop, or `signal`, ends the request.
   */
  followPets(options?: FollowPetsOptions): AsyncGenerator<Pet, void, undefined>;
}

/** A page the iterator could not get; `body` is the service's Error body when it sent one. */
export class AnimalStoreError extends Error {
  constructor(
    readonly status: number,
    readonly body: ApiErrorBody | undefined,
  ) {
    super(body ? `${status} ${body.code}: ${body.message}` : `HTTP ${status}`);
    this.name = 'AnimalStoreError';
  }
}

function defaultDeprecationWarning(notice: DeprecationNotice): void {
  const when = notice.sunset ? ` and will be removed on ${notice.sunset.toUTCString()}` : '';
  const instead = notice.link ? ` Replacement: ${notice.link}.` : '';
  const message = `Animal Store API: ${notice.operation} is deprecated${when}.${instead}`;
  // Chosen at run time: in Node.js a DeprecationWarning (which --no-deprecation silences), in a
  // browser the console. Nothing of Node is imported, so bundlers need no shim.
  const nodeProcess = (globalThis as { process?: { emitWarning?: (message: string, options: { type: string; code: string }) => void } })
    .process;
  if (typeof nodeProcess?.emitWarning === 'function') {
    nodeProcess.emitWarning(message, { type: 'DeprecationWarning', code: 'ANIMAL_STORE_DEPRECATED' });
  } else {
    console.warn(message);
  }
}

/**
 * A random UUID (version 4) for an Idempotency-Key. `crypto.randomUUID` exists only in secure
 * contexts (https, localhost); a page served over plain http elsewhere (a dev server opened from
 * a phone on the LAN) has `crypto.getRandomValues` alone, which this falls back to.
 */
export function newIdempotencyKey(): string {
  const { crypto } = globalThis;
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6]! & 0x0f) | 0x40;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

function readRateLimit(response: Response): RateLimitState | null {
  const limit = response.headers.get('X-RateLimit-Limit');
  const remaining = response.headers.get('X-RateLimit-Remaining');
  const reset = response.headers.get('X-RateLimit-Reset');
  if (limit === null || remaining === null || reset === null) return null;
  return { limit: Number(limit), remaining: Number(remaining), reset: new Date(Number(reset) * 1000) };
}

/** AnimalStoreClient.listAllPets, through `client`: GET /pets, one page after another by its Link: rel="next". */
function petPages(client: Client<paths>) {
  return async function* listAllPets(list: ListAllPetsOptions = {}): AsyncGenerator<Pet, void, undefined> {
    let cursor: string | undefined;
    do {
      const { data, error, response } = await client.GET('/pets', {
        params: { query: { limit: list.pageSize ?? 100, status: list.status, cursor } },
        signal: list.signal,
      });
      if (!data) throw new AnimalStoreError(response.status, error);
      yield* data;
      cursor = parseNextLink(response.headers.get('Link'))?.searchParams.get('cursor') ?? undefined;
    } while (cursor !== undefined);
  };
}

/** AnimalStoreClient.followPets, through `client`: GET /pets/feed read by the contract's stream reader, resumed by Last-Event-ID. */
function petFeed(client: Client<paths>) {
  return async function* followPets({ lastEventId, signal }: FollowPetsOptions = {}): AsyncGenerator<Pet, void, undefined> {
    const events = stream<{ data?: string }>(
      (headers, stopped) => client.GET('/pets/feed', { params: { header: headers }, signal: stopped, parseAs: 'stream' }),
      'sse',
      true,
      { lastEventId, signal },
    );
    // The first event, of an id alone, tells where the stream begins: no animal.
    for await (const event of events) if (event.data !== undefined) yield JSON.parse(event.data) as Pet;
  };
}

/**
 * Creates a client for the Animal Store API.
 *
 * Every call is typed from openapi.yaml and returns openapi-fetch's `{ data, error, response }`
 * (`error` is the Error body). On 429 and 503 it waits `Retry-After` and retries (and holds back
 * its other calls meanwhile, so it is never banned); `POST /pets` always carries an
 * `Idempotency-Key` (yours, or a new UUID) that every retry reuses, so a retried write never
 * creates two animals; a deprecated operation is reported once through `onDeprecation`.
 */
export function createAnimalStoreClient(options: AnimalStoreClientOptions): AnimalStoreClient {
  if (!options.apiKey) throw new TypeError('createAnimalStoreClient: apiKey is required');
  const baseUrl = options.baseUrl ?? servers[options.environment ?? 'production'];
  if (!baseUrl) throw new TypeError(`createAnimalStoreClient: unknown environment "${String(options.environment)}"`);
  const clock = options.clock ?? realClock;
  const onDeprecation = options.onDeprecation ?? defaultDeprecationWarning;
  const baseFetch = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  let rateLimit: RateLimitState | null = null;

  const fetch = retryingFetch(
    baseFetch,
    { maxRetries: 5, deadlineMs: 120_000, baseDelayMs: 250, maxDelayMs: 30_000, ...options.retry },
    clock,
    (response) => {
      rateLimit = readRateLimit(response) ?? rateLimit;
    },
  );
  const client = createClient<paths>({ baseUrl, fetch, headers: { Authorization: `Bearer ${options.apiKey}` } });

  const warned = new Set<string>();
  const behaviour: Middleware = {
    onRequest({ request, schemaPath }) {
      // A write that may be retried needs a key of its own, the same on every retry.
      if (request.method === 'POST' && schemaPath === '/pets' && !request.headers.has('Idempotency-Key')) {
        request.headers.set('Idempotency-Key', newIdempotencyKey());
        return request;
      }
      return undefined;
    },
    onResponse({ request, response, schemaPath }) {
      const deprecation = response.headers.get('Deprecation');
      const operation = `${request.method} ${schemaPath}`;
      if (deprecation !== null && !warned.has(operation)) {
        warned.add(operation);
        const sunset = response.headers.get('Sunset');
        onDeprecation({ operation, deprecation, sunset: sunset ? new Date(sunset) : null, link: response.headers.get('Link') });
      }
      return undefined;
    },
  };
  client.use(behaviour);

  return Object.defineProperties(client, {
    rateLimit: { get: () => rateLimit, enumerable: true },
    listAllPets: { value: petPages(client), enumerable: true },
    followPets: { value: petFeed(client), enumerable: true },
  }) as AnimalStoreClient;
}
