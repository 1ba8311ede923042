import { resolveRef, toolOpenApiVersion, unescapePointer, type OpenApiDocument } from '../contract/document.js';
import { isAddedMethod, operationObject } from '../contract/methods.js';
import { isIgnoredHeader, type Operation } from '../contract/operations.js';
import { parameterKey, parametersAsToolsRead } from '../contract/parameters.js';
import { lengthBeforePattern } from './length-before-pattern.js';
import { streamedRequests } from './stream-media.js';
import { essenceOf, kindOf, type BodyKind } from './media-types.js';
import { fixSchemas, flagsBesideRefs, validatorParameter, withoutAnnotations } from './schema-fixes.js';

/**
 * The small document the validator is given for one path's operations, and the URL it is shown for
 * a request to them, so that its work per request does not grow with the contract.
 */

/** Every `#/...` a node refers to, and what those refer to in turn. */
function referencedPointers(doc: OpenApiDocument, node: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(node)) {
    for (const item of node) referencedPointers(doc, item, found);
  } else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key !== '$ref' || typeof value !== 'string') {
        referencedPointers(doc, value, found);
      } else if (value.startsWith('#/') && !found.has(value)) {
        found.add(value);
        referencedPointers(doc, resolveRef(doc, { $ref: value }, value), found);
        // A pointer inside a component brings the whole component, and so what the rest of it refers to.
        const component = /^#\/components\/[^/]+\/[^/]+/.exec(value)?.[0];
        if (component !== undefined && component !== value) referencedPointers(doc, { $ref: component }, found);
      }
    }
  }
  return found;
}

/** The components `node` needs, each whole; a `$ref` outside `#/components/` brings the contract's paths along. */
function componentsOf(doc: OpenApiDocument, node: unknown): { components: Record<string, Record<string, unknown>>; paths: boolean } {
  const components: Record<string, Record<string, unknown>> = {};
  let paths = false;
  for (const pointer of referencedPointers(doc, node)) {
    const [, top, kind, name] = pointer.split('/').map(unescapePointer);
    if (top === 'components' && kind !== undefined && name !== undefined) (components[kind] ??= {})[name] = doc.components![kind]![name];
    else paths = true;
  }
  return { components, paths };
}

/**
 * A request body's schema without `readOnly` at its root or on a branch of its root `allOf` (a
 * contract that sends, as a body, a property its answers mark read-only: Linode's firewall
 * device), which would refuse every body.
 */
function writable(doc: OpenApiDocument, schema: unknown): unknown {
  let resolved: Record<string, unknown> | undefined;
  try {
    resolved = resolveRef<Record<string, unknown> | undefined>(doc, schema);
  } catch {
    // A $ref to nothing: the validator's document names it (see componentsOf).
    return schema;
  }
  if (resolved === null || typeof resolved !== 'object') return schema;
  if (resolved.readOnly === true) {
    const { readOnly: _readOnly, ...rest } = resolved;
    return rest;
  }
  const branches = resolved.allOf;
  if (
    !Array.isArray(branches) ||
    !branches.some((branch) => resolveRef<{ readOnly?: unknown } | undefined>(doc, branch)?.readOnly === true)
  )
    return schema;
  return { ...resolved, allOf: branches.map((branch) => writable(doc, branch)) };
}

/** The schema the validator checks a body of `kind` against: XML is checked as text, bytes not at all. */
function validatedSchema(kind: BodyKind, schema: unknown): unknown {
  if (kind === 'xml') return { type: 'string' };
  if (kind === 'binary') return {};
  return schema;
}

/**
 * Where an operation is in its validator's document: under its path key, with the operations of
 * the methods the validator knows; an operation of a method OpenAPI 3.2 adds (`query`, an
 * `additionalOperations` one), which the validator does not know, alone under a path of its
 * own, as the method it is shown (VALIDATOR_METHOD).
 */
export const validatorKey = (op: Operation) => (isAddedMethod(op.method) ? `${op.path} ${op.method}` : op.path);

/**
 * The method the validator is shown for a request of a method it does not know (see
 * validatorKey): one that takes a body, as QUERY does, and whatever the others do.
 */
export const VALIDATOR_METHOD = 'post';

/** The path parameters of the operation in the order its path names them. */
export function pathParameterNames(op: Operation): string[] {
  return [...op.urlPath.matchAll(/\{([^{}]+)\}/g)].map((m) => m[1]!);
}

/**
 * What the path the validator is given for a path of the contract begins with, before its slot:
 * no contract's path nor property name is likely to be it.
 */
const SLOT_PREFIX = '/contract-kit-op';

/**
 * The path the validator is given for the path of the contract that is `slot` among those of its
 * document, with `count` path parameters: `/contract-kit-op0/{p0}/{p1}`.
 */
export const validatorPath = (slot: number, count: number) =>
  `${SLOT_PREFIX}${slot}${Array.from({ length: count }, (_, i) => `/{p${i}}`).join('')}`;

/** Whether a path the validator reports is the URL it was shown (validatorUrl): the request as a whole. */
export const isValidatorUrl = (path: string) => path.startsWith(SLOT_PREFIX) && /^\d+(\/|$)/.test(path.slice(SLOT_PREFIX.length));

/**
 * The URL the validator is shown for a request to an operation whose path is `slot` in its
 * document: validatorPath with the path parameters' values, and the request's query. The
 * validator compiles the path it is given (path-to-regexp), which a contract's own path may not
 * survive: a `+`, a parenthesis, a parameter named `station-id`.
 */
export function validatorUrl(slot: number, names: readonly string[], params: Record<string, string>, url: string): string {
  const query = url.indexOf('?');
  const path = `${SLOT_PREFIX}${slot}${names.map((name) => `/${encodeURIComponent(params[name] ?? '')}`).join('')}`;
  return query < 0 ? path : `${path}${url.slice(query)}`;
}

/**
 * An operation's parameters as the validator reads them (validatorParameter), but the headers
 * OpenAPI ignores (isIgnoredHeader), each path
 * parameter renamed `p0`, `p1`... in the order its path names them.
 */
function renamed(doc: OpenApiDocument, parameters: unknown, names: readonly string[], where: string): unknown[] | undefined {
  if (!Array.isArray(parameters)) return undefined;
  return (parameters as unknown[])
    .map((raw, i) => validatorParameter(doc, resolveRef<Record<string, unknown>>(doc, raw, `${where}/parameters/${i}`)))
    .filter((p) => !isIgnoredHeader(p))
    .map((p): unknown => (p.in === 'path' ? { ...p, name: `p${names.indexOf(p.name as string)}` } : p));
}

/** The operation object the validator gets for `op`, whose path item is `item`. */
function validatorOperation(doc: OpenApiDocument, op: Operation, item: Record<string, unknown>, names: readonly string[]) {
  const where = `#/paths/${op.path}`;
  const operation = { ...operationObject(item, op.method) };
  delete operation.callbacks;
  // The validator does not check security (the authenticate step does), but reads it to let an
  // apiKey through in the query: each scheme the operation names, as a requirement of its own.
  operation.security = schemeNamesOf(op).map((name) => ({ [name]: [] }));
  // The path's parameters but those the operation declares again (a header by its name in any case), then its own:
  // the validator merges them by their exact name, and would check a header with the path's schema.
  // A parameter in: querystring (OpenAPI 3.2), which the validator does not know, as the query parameters it stands for.
  const read = parametersAsToolsRead(
    doc,
    (operation.parameters as unknown[] | undefined) ?? [],
    (item.parameters as unknown[] | undefined) ?? [],
  );
  if (read.open) operation['x-eov-allow-unknown-query-parameters'] = true;
  const own = (renamed(doc, read.own, names, where) ?? []) as { in: string; name: string }[];
  const overridden = new Set(own.map(parameterKey));
  const pathLevel = ((renamed(doc, read.path, names, where) ?? []) as { in: string; name: string }[]).filter(
    (p) => !overridden.has(parameterKey(p)),
  );
  operation.parameters = [...pathLevel, ...own];
  // The query parameters and headers its path key names after `#` or `?`, where it declares none of that name.
  const declared = operation.parameters as { in: string; name: string }[];
  const implied = op.parameters.filter(
    (p) => op.dispatch.some((d) => d.in === p.in && d.name === p.name) && !declared.some((d) => d.in === p.in && d.name === p.name),
  );
  if (implied.length > 0)
    operation.parameters = [
      ...((operation.parameters as unknown[] | undefined) ?? []),
      ...implied.map(({ name, in: at, schema }) => ({ name, in: at, required: true, schema })),
    ];
  // A streamed body is checked item by item as the handler reads it (streamed-requests.ts), never whole: the
  // validator takes any body of its media type (it sees none), and none at all where every media type streams.
  const streamed = streamedRequests(doc, op);
  const content = Object.entries(op.requestBody?.content ?? {});
  if (op.requestBody && content.some(([mediaType]) => !streamed.has(mediaType))) {
    operation.requestBody = {
      required: op.requestBody.required,
      content: Object.fromEntries(
        content.map(([mediaType, media]) => [
          // The validator matches `type/*` ranges only; the body step matched the suffix of `application/*+json`.
          mediaType.replace(/^([^/]+)\/\*\+[^;]*/, '$1/*'),
          streamed.has(mediaType)
            ? { schema: {} }
            : { ...media, schema: validatedSchema(kindOf(essenceOf(mediaType) ?? mediaType), writable(doc, media.schema)) },
        ]),
      ),
    };
  } else delete operation.requestBody;
  return operation;
}

/** The security schemes an operation names. */
const schemeNamesOf = (op: Operation) => [...new Set(op.security.flatMap((requirement) => Object.keys(requirement)))];

/** The path item the validator gets for `ops`, each of the same validatorKey (see validatorOperation). A GET also answers HEAD. */
function validatorItem(doc: OpenApiDocument, ops: readonly Operation[]): Record<string, unknown> {
  const { path } = ops[0]!;
  const names = pathParameterNames(ops[0]!);
  const item = resolveRef<Record<string, unknown>>(doc, doc.paths![path], `#/paths/${path}`);
  // Each operation holds the path's parameters it does not declare again (validatorOperation).
  const only: Record<string, unknown> = {};
  for (const op of ops) only[isAddedMethod(op.method) ? VALIDATOR_METHOD : op.method] = validatorOperation(doc, op, item, names);
  if (only.get && !item.head) {
    const { operationId: _, ...head } = only.get as Record<string, unknown>;
    only.head = head;
  }
  return only;
}

/**
 * The document the validator gets for some operations of the contract (`ops`): those operations
 * alone, each path key of theirs under a path made of its slot (`slotOf`) and its parameters
 * only (see validatorUrl), served at `/`, with the components they refer to and no others, so
 * that the validator's work per request does not grow with the contract. XML bodies are checked
 * as text, other bytes not at all. `contractPaths` says whether a `$ref` into the contract's
 * paths (rare) brought them along: the validator then compiles each of them, and fails the
 * whole document on one it cannot read (`/Items({id})`).
 */
export function validatorDocument(
  doc: OpenApiDocument,
  ops: readonly Operation[],
  slotOf: (op: Operation) => number,
): { document: OpenApiDocument; contractPaths: boolean } {
  const byPath = new Map<string, Operation[]>();
  for (const op of ops) byPath.set(validatorKey(op), [...(byPath.get(validatorKey(op)) ?? []), op]);
  const items: Record<string, Record<string, unknown>> = {};
  for (const same of byPath.values())
    items[validatorPath(slotOf(same[0]!), pathParameterNames(same[0]!).length)] = validatorItem(doc, same);
  const found = componentsOf(doc, items);
  // A $ref into another path's parts brings the contract's paths along, and with them every component they use.
  const { paths } = found;
  const components = paths ? { ...(doc.components as Record<string, Record<string, unknown>>) } : found.components;
  const schemes = doc.components?.securitySchemes ?? {};
  const schemeNames = [...new Set(ops.flatMap(schemeNamesOf))];
  if (schemeNames.length > 0) components.securitySchemes = Object.fromEntries(schemeNames.map((name) => [name, schemes[name]]));
  const document: OpenApiDocument = {
    openapi: toolOpenApiVersion(doc.openapi),
    info: doc.info,
    servers: [{ url: '/' }],
    paths: { ...(paths ? doc.paths : {}), ...items },
    components,
  };
  return {
    document: lengthBeforePattern(fixSchemas(flagsBesideRefs(withoutAnnotations(structuredClone(document))))),
    contractPaths: paths,
  };
}
