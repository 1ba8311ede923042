import { ContractError, escapePointer, isOpenApi32, parameterStyle, resolveRef, type OpenApiDocument } from './document.js';
import type { Dispatch } from './path-keys.js';
import { querystringAsQuery, withQuerystringAsQuery } from './querystring.js';

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

/**
 * Whether a parameter is a header OpenAPI says to ignore (Accept, Content-Type, Authorization):
 * the request's own header says what it says, checked by content negotiation and security.
 */
export const isIgnoredHeader = (p: { in?: unknown; name?: unknown }) =>
  p.in === 'header' && typeof p.name === 'string' && ['accept', 'content-type', 'authorization'].includes(p.name.toLowerCase());

/** Where a parameter is and its name (a header's in any case): an operation's parameter overrides its path's of the same. */
export const parameterKey = (p: { in?: unknown; name?: unknown }) =>
  `${String(p.in)}:${p.in === 'header' ? String(p.name).toLowerCase() : String(p.name)}`;

/**
 * An operation's parameters and its path's, as the tools the kit builds on read them: a parameter
 * in: querystring (OpenAPI 3.2), which they do not know, as the query parameters it stands for
 * (withQuerystringAsQuery), the path's the operation declares again left out first. `open` says
 * whether a querystring among them takes keys it does not name.
 */
export function parametersAsToolsRead(
  doc: OpenApiDocument,
  own: unknown[],
  path: unknown[],
): { own: unknown[]; path: unknown[]; open: boolean } {
  const redeclared = new Set(own.map((p) => parameterKey(resolveRef<Record<string, unknown>>(doc, p))));
  const ownRead = withQuerystringAsQuery(doc, own);
  const pathRead = withQuerystringAsQuery(
    doc,
    path.filter((p) => !redeclared.has(parameterKey(resolveRef<Record<string, unknown>>(doc, p)))),
  );
  return { own: ownRead.parameters, path: pathRead.parameters, open: ownRead.open || pathRead.open };
}

/**
 * Path-level and operation-level parameters, the operation's winning where both name one. A
 * parameter `in: querystring` (OpenAPI 3.2: the whole query string as one value) is the query
 * parameters it stands for (see querystringAsQuery); why the kit cannot read one goes to
 * `unread`.
 */
export function parametersOf(doc: OpenApiDocument, pathLevel: unknown[], opLevel: unknown[], where: string, unread: string[]): Parameter[] {
  const byKey = new Map<string, Parameter>();
  const querystrings: string[] = [];
  // The path's parameters the operation declares again are its own alone (a querystring too, before it stands for others).
  const own = new Set(opLevel.map((item, i) => parameterKey(resolveRef<Record<string, unknown>>(doc, item, `${where}/parameters/${i}`))));
  for (const [list, at] of [
    [pathLevel, `${where}/..`],
    [opLevel, where],
  ] as const) {
    list.forEach((item, i) => {
      const resolved = resolveRef<Record<string, unknown>>(doc, item, `${at}/parameters/${i}`);
      if (list === pathLevel && own.has(parameterKey(resolved))) return;
      let each = [resolved];
      if (resolved.in === 'querystring' && typeof resolved.name === 'string' && isOpenApi32(doc)) {
        querystrings.push(resolved.name);
        const read = querystringAsQuery(doc, resolved);
        if ('reason' in read) unread.push(read.reason);
        each = 'reason' in read ? [] : read.parameters;
      }
      for (const p of each) {
        if (typeof p.name !== 'string' || !['query', 'header', 'path', 'cookie'].includes(p.in as string)) {
          throw new ContractError(`${at}/parameters/${i}`, 'is not a parameter (name and in: query, header, path or cookie)');
        }
        if (isIgnoredHeader(p)) continue;
        const schema = p.schema ?? Object.values((p.content as Record<string, MediaTypeObject> | undefined) ?? {})[0]?.schema;
        const type = resolveRef<{ type?: unknown } | undefined>(doc, schema, `${at}/parameters/${i}/schema`)?.type;
        byKey.set(parameterKey(p), {
          name: p.name,
          in: p.in as Parameter['in'],
          required: p.required === true || p.in === 'path',
          type: typeof type === 'string' ? type : undefined,
          explode: typeof p.explode === 'boolean' ? p.explode : parameterStyle(p) === 'form',
          schema,
          examples: [
            p.example,
            ...Object.entries((p.examples as Record<string, unknown> | undefined) ?? {}).map(
              ([name, e]) =>
                resolveRef<{ value?: unknown } | undefined>(doc, e, `${at}/parameters/${i}/examples/${escapePointer(name)}`)?.value,
            ),
          ].filter((e) => e !== undefined),
        });
      }
    });
  }
  // OpenAPI 3.2: a querystring is the whole query, beside no other query parameter.
  const query = opLevel.concat(pathLevel).some((p) => resolveRef<{ in?: unknown } | undefined>(doc, p)?.in === 'query');
  if (querystrings.length > 1 || (querystrings.length > 0 && query))
    unread.unshift(
      `its parameter ${querystrings[0]} is in: querystring beside ${querystrings.length > 1 ? 'another' : 'query parameters'}, which OpenAPI 3.2 does not allow`,
    );
  return [...byKey.values()];
}

/** A parameter a path key names after its `#` or `?` (see splitPathKey), where the operation declares none of that name. */
export const dispatchParameter = (d: Dispatch): Parameter => ({
  name: d.name,
  in: d.in,
  required: true,
  type: 'string',
  explode: false,
  schema: d.value === null ? { type: 'string' } : { type: 'string', enum: [d.value] },
  examples: d.value === null ? [] : [d.value],
});
