import { escapePointer, resolveRef, type OpenApiDocument, type SecurityRequirement } from './document.js';
import { operationNames } from './names.js';
import { pathItemOperations } from './methods.js';
import { notServedYet } from './openapi-3.2.js';
import { dispatchParameter, parametersOf, type MediaTypeObject, type Parameter } from './parameters.js';
import { unusableSecurity } from './unusable-security.js';
import { splitPathKey, type Dispatch } from './path-keys.js';

export { isIgnoredHeader, type MediaTypeObject, type Parameter } from './parameters.js';

/** One operation of the contract, as the kit routes, checks and types it. */
export interface Operation {
  /** The name its handler goes by (see operationNames): its operationId where that is an identifier. */
  name: string;
  /** The operationId as the contract writes it, if it has one. */
  operationId: string | undefined;
  /**
   * The method it is requested with, in lower case (`get`; in OpenAPI 3.2 also `query`, or an
   * `additionalOperations` method such as `link`): upper case on the wire. See isAddedMethod.
   */
  method: string;
  /** The path key as the contract writes it, relative to the server URL (`/books/{bookId}`, `/#Action=List`). */
  path: string;
  /** The path a request takes: the path key before a `#` or `?` (see splitPathKey). */
  urlPath: string;
  /** The query parameters and headers the path key names after a `#` or `?`, which tell apart operations of one URL. */
  dispatch: Dispatch[];
  /**
   * Why the kit cannot serve it, for a defect of the contract at this operation alone (a path
   * parameter its path does not name, an operationId used before): it answers 501 saying so,
   * and is named at start; null for one it serves.
   */
  defect: string | null;
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

/** `{ "a": { ... } }` with each value's `$ref` followed, or {} for anything else. */
function resolvedMap<T>(doc: OpenApiDocument, value: unknown, where: string): Record<string, T> {
  if (!value || typeof value !== 'object') return {};
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, resolveRef<T>(doc, item, `${where}/${escapePointer(key)}`)]));
}

/**
 * Every operation of the contract's `paths`, in document order (webhooks and callbacks are sent,
 * not served: they are not listed). Each gets its name (see operationNames) and its effective
 * security: its own `security`, else the contract's.
 * An operation the kit cannot serve for a defect of its own has it in `defect`.
 * @throws ContractError for what makes the contract unreadable: a path item `$ref` or a
 * parameter it cannot resolve
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
    for (const { method, key, op: rawOp, defect: methodDefect } of pathItemOperations(doc, item)) {
      const op = rawOp as Record<string, unknown>;
      const pointer = `${itemPointer}/${key}`;
      const where = `${label}${pointer}`;
      let operationId = typeof op.operationId === 'string' && op.operationId !== '' ? op.operationId : undefined;
      let defect: string | null = methodDefect;
      if (operationId !== undefined) {
        const other = ids.get(operationId);
        if (other) {
          defect ??= `its operationId ${operationId} is also that of ${other}`;
          operationId = undefined;
        } else ids.set(operationId, pointer);
      }
      const querystring: string[] = [];
      const declared = parametersOf(doc, (item.parameters as unknown[]) ?? [], (op.parameters as unknown[]) ?? [], where, querystring);
      const { urlPath, dispatch } = splitPathKey(path, declared);
      const parameters = [
        ...declared,
        ...dispatch.filter((d) => !declared.some((p) => p.in === d.in && p.name === d.name)).map(dispatchParameter),
      ];
      const stray = parameters.find((p) => p.in === 'path' && !urlPath.includes(`{${p.name}}`));
      if (stray) defect ??= `its path parameter ${stray.name} is not in its path ${path}`;
      const body = op.requestBody === undefined ? null : resolveRef<Record<string, unknown>>(doc, op.requestBody, `${where}/requestBody`);
      const responses = resolvedMap<Record<string, unknown>>(doc, op.responses, `${where}/responses`);
      defect ??= notServedYet(doc, querystring, body, responses, where);
      found.push({
        operationId,
        method,
        path,
        urlPath,
        dispatch,
        defect,
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
  const operations = found.map((op, i) => ({ ...op, name: names[i]! }));
  const declared = new Set(Object.keys(doc.components?.securitySchemes ?? {}));
  for (const op of operations) {
    op.defect ??= unusableSecurity(doc, op.security);
    // An alternative that names a scheme the contract lacks can never hold: the others are tried.
    if (op.defect === null) op.security = op.security.filter((requirement) => Object.keys(requirement).every((name) => declared.has(name)));
  }
  // Operations a request cannot tell apart: one method, one URL (parameters named alike or not), nothing after `#` or `?` to choose by.
  const byRoute = new Map<string, Operation[]>();
  for (const op of operations) {
    const route = JSON.stringify([op.method, op.urlPath.replace(/\{[^{}]*\}/g, '{}'), op.dispatch]);
    byRoute.set(route, [...(byRoute.get(route) ?? []), op]);
  }
  for (const group of byRoute.values()) {
    if (group.length < 2) continue;
    const listed = group.map((op) => op.name).join(', ');
    for (const op of group)
      op.defect ??= `the contract gives ${op.method.toUpperCase()} ${op.urlPath} to ${listed}, and nothing tells them apart`;
  }
  return operations;
}
