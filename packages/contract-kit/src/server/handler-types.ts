import type { UploadedFile } from './bodies.js';
import type { KitContext } from './handlers.js';

/**
 * Handler types for any contract, from the types openapi-typescript writes for it: an operation
 * type `Op` is one of its `paths[path][method]` (or `operations[operationId]`), with `parameters`,
 * `requestBody` and `responses`. `contract-kit generate` writes, for each operation, the line that
 * names its type, and `Handlers<Operations, Context>` checks a handler map against them: a missing
 * handler, a status, header, media type or body the operation does not declare does not compile.
 */

type Never<T> = [T] extends [never] ? true : [T] extends [undefined] ? true : false;
/** `{}` for what openapi-typescript writes as `never` or leaves out. */
type OrEmpty<T> = Never<T> extends true ? Record<string, never> : NonNullable<T>;

/** JSON media types: `application/json`, `application/problem+json`... */
type JsonMediaType = 'application/json' | `${string}/${string}+json` | `${string}/json`;
type XmlMediaType = 'application/xml' | 'text/xml' | `${string}/${string}+xml`;

/** `format: binary` fields of a multipart form arrive as files. */
type FormFields<T> = T extends object ? { [K in keyof T]: T[K] extends string ? T[K] | UploadedFile : T[K] } : T;

/**
 * What `contract-kit generate` adds to the type of an OpenAPI 3.2 operation with a stream (a
 * media type with `itemSchema`, typed as one item: see streamsAsItems): its sequential media
 * types are then streams of items, where before 3.2 they are one body.
 */
export interface StreamsMark {
  'contract-kit streams': true;
}

/** Whether `Op` carries StreamsMark. */
type Streams<Op> = Op extends StreamsMark ? true : false;

/** A body of media type `M` and schema type `T` as a handler receives it; of an operation with streams (`S`), a stream's items. */
export type BodyIn<M, T, S = false> = S extends true
  ? M extends 'application/jsonl' | 'application/x-ndjson' | 'application/json-seq'
    ? AsyncIterable<T>
    : WholeBodyIn<M, T>
  : WholeBodyIn<M, T>;

type WholeBodyIn<M, T> = M extends JsonMediaType | 'application/x-www-form-urlencoded'
  ? T
  : M extends 'multipart/form-data'
    ? FormFields<T>
    : M extends XmlMediaType | `text/${string}`
      ? string
      : Buffer;

/** The sequential media types whose streams (OpenAPI 3.2 `itemSchema`) the kit frames. */
type StreamMediaType = 'text/event-stream' | 'application/jsonl' | 'application/x-ndjson' | 'application/json-seq';

/**
 * A body of media type `M` and schema type `T` as a handler answers it; of an operation with
 * streams (`S`), a stream's items, as an async iterable or an array.
 */
export type BodyOut<M, T, S = false> = S extends true
  ? M extends StreamMediaType
    ? AsyncIterable<T> | Iterable<T>
    : WholeBodyOut<M, T>
  : WholeBodyOut<M, T>;

type WholeBodyOut<M, T> = M extends JsonMediaType ? T : M extends XmlMediaType | `text/${string}` ? string : Uint8Array | string;

type RequestContent<Op> = Op extends { requestBody?: infer B } ? (NonNullable<B> extends { content: infer C } ? C : never) : never;

/** The body of an operation's request, with the media type it came in; none when it takes none or the request sent none. */
export type RequestBodyOf<Op> =
  Never<RequestContent<Op>> extends true
    ? { contentType: undefined; body: undefined }
    : | {
          [M in keyof RequestContent<Op> & string]: { contentType: M; body: BodyIn<M, RequestContent<Op>[M], Streams<Op>> };
        }[keyof RequestContent<Op> & string]
      | (Op extends { requestBody: { content: unknown } } ? never : { contentType: undefined; body: undefined });

type Parameters<Op, Where extends string> = Op extends { parameters: infer P }
  ? P extends Record<Where, infer V>
    ? OrEmpty<V>
    : P extends Partial<Record<Where, infer V>>
      ? OrEmpty<V>
      : Record<string, never>
  : Record<string, never>;

/** The validated request of an operation as its handler gets it. */
export type InputOf<Op> = {
  path: Parameters<Op, 'path'>;
  query: Parameters<Op, 'query'>;
  headers: Parameters<Op, 'header'>;
  cookies: Parameters<Op, 'cookie'>;
} & RequestBodyOf<Op>;

/**
 * A declared header's value as a handler writes it: a scalar or a list of them as its schema
 * types it; the text itself for a header declared with `content` (openapi-typescript types it as
 * its media types) or with an object schema, which the handler serializes.
 */
type HeaderOut<T> = T extends string | number | boolean | readonly (string | number | boolean)[] ? T : string;

/** The headers a response declares, without the index signature openapi-typescript adds. */
type DeclaredHeaders<R> = R extends { headers: infer H }
  ? { [N in keyof H as string extends N ? never : N]?: HeaderOut<Exclude<H[N], undefined>> }
  : Record<string, never>;

/** `200` → 200; `4XX` and `default` → any status of the range. */
type StatusOf<S> = S extends number ? S : S extends `${infer N extends number}` ? N : number;

/** One declared response: its status, a body of one of its media types (the first needs no contentType), its headers. */
type ResponseOf<S, R, Streamed> = R extends { content: infer C }
  ? Never<C> extends true
    ? { status: StatusOf<S>; body?: undefined; headers?: DeclaredHeaders<R>; contentType?: undefined }
    : {
        [M in keyof C & string]: { status: StatusOf<S>; contentType?: M; body: BodyOut<M, C[M], Streamed>; headers?: DeclaredHeaders<R> };
      }[keyof C & string]
  : { status: StatusOf<S>; body?: undefined; headers?: DeclaredHeaders<R>; contentType?: undefined };

/** What a handler of `Op` may answer: one of its declared statuses, with that status's media types, bodies and headers. */
export type ResultOf<Op> = Op extends { responses: infer Rs } ? { [S in keyof Rs]: ResponseOf<S, Rs[S], Streams<Op>> }[keyof Rs] : never;

/** The handler of an operation `Op`. */
export type TypedHandler<Op, Context = object, Caller = unknown> = (
  input: InputOf<Op>,
  context: KitContext<Caller> & Context,
) => Promise<ResultOf<Op>> | ResultOf<Op>;

/** One handler per operation of `Operations` (the map `contract-kit generate` writes): a missing one does not compile. */
export type Handlers<Operations, Context = object, Caller = unknown> = {
  [K in keyof Operations]: TypedHandler<Operations[K], Context, Caller>;
};
