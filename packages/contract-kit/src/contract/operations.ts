import { ContractError, escapePointer, resolveRef, type OpenApiDocument, type SecurityRequirement } from './document.js';
import { operationNames } from './names.js';

/** HTTP methods an OpenAPI path item may hold, in the order OpenAPI lists them. */
export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

/** A parameter of an operation, its `$ref` followed. */
export interface Parameter {
  name: string;
  in: 'query' | 'header' | 'path' | 'cookie';
  required: boolean;
  /** The schema's `type` (after a `$ref`), when it names one. */
  type: string | undefined;
  /** Whether an array or object is sent as repeated parameters (`explode`, true by default for query and cookie parameters). */
  explode: boolean;
  schema: unknown;
  /** Its example values (`example`, and each of `examples`' values), for a client to send. */
  examples: unknown[];
}

/** A media type an operation reads or writes, and its schema. */
export interface MediaTypeObject {
  schema?: unknown;
  [key: string]: unknown;
}

/** One operation of the contract, as the kit routes, checks and types it. */
export interface Operation {
  /** The name its handler goes by (see operationNames): its operationId where that is an identifier. */
  name: string;
  /** The operationId as the contract writes it, if it has one. */
  operationId: string | undefined;
  method: HttpMethod;
  /** The path as the contract writes it, relative to the server URL (`/books/{bookId}`). */
  path: string;
  /** Where it sits in the contract, as a JSON pointer (`#/paths/~1books/get`). */
  pointer: string;
  summary: string;
  /** `deprecated: true`, or the contract's `info` names its end (`x-sunset` or `x-deprecated-at`). */
  deprecated: boolean;
  /** When it was deprecated (`x-deprecated-at`, ISO 8601, its own else `info`'s), or null. */
  deprecatedAt: string | null;
  /** When it goes away (`x-sunset`, ISO 8601, its own else `info`'s), or null. */
  sunset: string | null;
  /** What replaces it (`x-successor`, a path or a URL), or null. */
  successor: string | null;
  /** Path-level and operation-level parameters, the operation's winning where both name one. */
  parameters: Parameter[];
  /** Its request body: whether it is required, and its media types. Null when it takes none. */
  requestBody: { required: boolean; content: Record<string, MediaTypeObject> } | null;
  /** Its responses by status (`200`, `4XX`, `default`), each with its media types. */
  responses: Record<string, { content: Record<string, MediaTypeObject> }>;
  /** Who may call it: alternatives (any one suffices), each of schemes that must all hold. Empty: public. */
  security: SecurityRequirement[];
  /** The operation object as the contract writes it. */
  raw: Record<string, unknown>;
}

/**
 * Whether a parameter is a header OpenAPI says to ignore (Accept, Content-Type, Authorization):
 * the request's own header says what it says, checked by content negotiation and security.
 */
export const isIgnoredHeader = (p: { in?: unknown; name?: unknown }) =>
  p.in === 'header' && typeof p.name === 'string' && ['accept', 'content-type', 'authorization'].includes(p.name.toLowerCase());

/** `{ "a": { ... } }` with each value's `$ref` followed, or {} for anything else. */
function resolvedMap<T>(doc: OpenApiDocument, value: unknown, where: string): Record<string, T> {
  if (!value || typeof value !== 'object') return {};
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, resolveRef<T>(doc, item, `${where}/${escapePointer(key)}`)]));
}

function parametersOf(doc: OpenApiDocument, pathLevel: unknown[], opLevel: unknown[], where: string): Parameter[] {
  const byKey = new Map<string, Parameter>();
  for (const [list, at] of [
    [pathLevel, `${where}/..`],
    [opLevel, where],
  ] as const) {
    list.forEach((item, i) => {
      const p = resolveRef<Record<string, unknown>>(doc, item, `${at}/parameters/${i}`);
      if (typeof p.name !== 'string' || !['query', 'header', 'path', 'cookie'].includes(p.in as string)) {
        throw new ContractError(`${at}/parameters/${i}`, 'is not a parameter (name and in: query, header, path or cookie)');
      }
      if (isIgnoredHeader(p)) return;
      const schema = p.schema ?? Object.values((p.content as Record<string, MediaTypeObject> | undefined) ?? {})[0]?.schema;
      const type = resolveRef<{ type?: unknown } | undefined>(doc, schema, `${at}/parameters/${i}/schema`)?.type;
      byKey.set(`${p.in as string}:${p.in === 'header' ? p.name.toLowerCase() : p.name}`, {
        name: p.name,
        in: p.in as Parameter['in'],
        required: p.required === true || p.in === 'path',
        type: typeof type === 'string' ? type : undefined,
        explode:
          typeof p.explode === 'boolean' ? p.explode : (p.style ?? (p.in === 'query' || p.in === 'cookie' ? 'form' : 'simple')) === 'form',
        schema,
        examples: [
          p.example,
          ...Object.entries((p.examples as Record<string, unknown> | undefined) ?? {}).map(
            ([name, e]) =>
              resolveRef<{ value?: unknown } | undefined>(doc, e, `${at}/parameters/${i}/examples/${escapePointer(name)}`)?.value,
          ),
        ].filter((e) => e !== undefined),
      });
    });
  }
  return [...byKey.values()];
}

/**
 * Every operation of the contract's `paths`, in document order (webhooks and callbacks are sent,
 * not served: they are not listed). Each gets its name (see operationNames) and its effective
 * security: its own `security`, else the contract's.
 * @throws ContractError for what the kit cannot route: an operationId used twice, a path item
 * `$ref` or parameter it cannot resolve, a path parameter the path does not name
 */
export function listOperations(doc: OpenApiDocument, label = 'the contract'): Operation[] {
  const found: Omit<Operation, 'name'>[] = [];
  // A whole contract's end (a major version served beside its successor): info's x-sunset and
  // x-deprecated-at deprecate every operation that names no date of its own.
  const info: Record<string, unknown> = { ...doc.info };
  const dateOf = (node: Record<string, unknown>, key: string) => (typeof node[key] === 'string' ? node[key] : null);
  const ids = new Map<string, string>();
  for (const [path, rawItem] of Object.entries(doc.paths ?? {})) {
    const itemPointer = `#/paths/${escapePointer(path)}`;
    const item = resolveRef<Record<string, unknown>>(doc, rawItem, `${label}${itemPointer}`);
    for (const method of HTTP_METHODS) {
      const op = item[method] as Record<string, unknown> | undefined;
      if (!op || typeof op !== 'object') continue;
      const pointer = `${itemPointer}/${method}`;
      const where = `${label}${pointer}`;
      const operationId = typeof op.operationId === 'string' && op.operationId !== '' ? op.operationId : undefined;
      if (operationId !== undefined) {
        const other = ids.get(operationId);
        if (other) throw new ContractError(where, `operationId ${operationId} is also used at ${other}`);
        ids.set(operationId, pointer);
      }
      const parameters = parametersOf(doc, (item.parameters as unknown[]) ?? [], (op.parameters as unknown[]) ?? [], where);
      for (const p of parameters) {
        if (p.in === 'path' && !path.includes(`{${p.name}}`))
          throw new ContractError(where, `path parameter ${p.name} is not in the path ${path}`);
      }
      const body = op.requestBody === undefined ? null : resolveRef<Record<string, unknown>>(doc, op.requestBody, `${where}/requestBody`);
      const responses = resolvedMap<Record<string, unknown>>(doc, op.responses, `${where}/responses`);
      found.push({
        operationId,
        method,
        path,
        pointer,
        summary: typeof op.summary === 'string' ? op.summary : '',
        deprecated: op.deprecated === true || dateOf(info, 'x-sunset') !== null || dateOf(info, 'x-deprecated-at') !== null,
        deprecatedAt: dateOf(op, 'x-deprecated-at') ?? dateOf(info, 'x-deprecated-at'),
        sunset: dateOf(op, 'x-sunset') ?? dateOf(info, 'x-sunset'),
        successor: typeof op['x-successor'] === 'string' ? op['x-successor'] : null,
        parameters,
        requestBody: body && {
          required: body.required === true,
          content: resolvedMap<MediaTypeObject>(doc, body.content, `${where}/requestBody/content`),
        },
        responses: Object.fromEntries(
          Object.entries(responses).map(([status, response]) => [
            status,
            { content: resolvedMap<MediaTypeObject>(doc, response.content, `${where}/responses/${status}/content`) },
          ]),
        ),
        security: ((op.security ?? doc.security ?? []) as SecurityRequirement[]).filter((r) => r && typeof r === 'object'),
        raw: op,
      });
    }
  }
  const names = operationNames(found);
  return found.map((op, i) => ({ ...op, name: names[i]! }));
}
