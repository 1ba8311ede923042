import { resolveRef, toolOpenApiVersion, type OpenApiDocument } from '../contract/document.js';
import { isAddedMethod, operationObject } from '../contract/methods.js';
import type { Operation } from '../contract/operations.js';
import { isMediaTypeKey } from '../server/media-types.js';
import { fixSchemas } from '../server/schema-fixes.js';
import { isJsonMediaType } from '../testing/checker.js';
import { ContractSchemas, NOTHING } from '../testing/schemas.js';

type Node = Record<string, unknown>;

/** Where Prism answers operation `index` (the mock's router has matched the request to it already). */
export const prismPath = (index: number) => `/op${index}`;

/** The method Prism is asked an operation's answer with: its own, or GET for one Prism does not know (QUERY, an `additionalOperations` one). */
export const prismMethod = (op: Operation) => (isAddedMethod(op.method) ? 'get' : op.method);

/**
 * Whether Prism writes a body of this media type and schema: JSON and `+json`; text and XML
 * only of a scalar (it cannot write an object as either). Any other (`*\/*`,
 * `application/vnd.x`, XML of an object) is given to it as JSON, and the mock writes it.
 */
function prismWrites(doc: OpenApiDocument, type: string, schema: unknown): boolean {
  if (isJsonMediaType(type)) return true;
  if (!/^text\/|[/+]xml$/i.test(type)) return false;
  const resolved = resolveRef<Node | undefined>(doc, schema);
  return resolved === undefined || ['string', 'number', 'integer', 'boolean'].includes(resolved.type as string);
}

/** An answer of the contract no value was found for: its schema may take none (a pattern longer than its maxLength). */
export interface Unanswerable {
  operation: string;
  status: string;
  /** Why the first value made was refused. */
  why: string;
}

/** What the mock sends for an answer of Prism's: the media type the contract declares, by the one Prism was given. */
export type DeclaredTypes = Map<string, Map<string, string>>;

/**
 * The contract as Prism gets it: a response generator only, since the mock's contract server
 * has routed and checked the request before Prism sees it. Each operation at {@link prismPath}
 * of its index, without parameters, body or security; each JSON body and header without an
 * example, or whose example its schema refuses, given a value its schema takes; a media type
 * Prism cannot write given to it as `application/json` (the mock sends the declared one, see
 * `declared`). Components stay where they are and are referred to, not copied into each
 * operation: a copy per use multiplies a contract's size.
 */
export function prismDocument(
  doc: OpenApiDocument,
  operations: Operation[],
): { document: OpenApiDocument; declared: DeclaredTypes; unanswerable: Unanswerable[] } {
  const schemas = new ContractSchemas(doc);
  const copy = structuredClone(doc);
  const declared: DeclaredTypes = new Map();
  const unanswerable: Unanswerable[] = [];
  const seen = new Map<Node, string | null>();
  const paths: Record<string, Node> = {};
  operations.forEach((op, index) => {
    const item = resolveRef<Node>(copy, copy.paths![op.path]);
    const operation = operationObject(item, op.method) as Node;
    const responses: Record<string, unknown> = {};
    const types = new Map<string, string>();
    for (const [status, raw] of Object.entries((operation.responses ?? {}) as Record<string, unknown>)) {
      const response = resolveRef<Node>(copy, raw);
      if (!seen.has(response)) seen.set(response, fillResponse(copy, response, schemas));
      const why = seen.get(response);
      if (why) unanswerable.push({ operation: op.name, status, why });
      for (const [type, media] of Object.entries(op.responses[status]?.content ?? {})) {
        if (!isMediaTypeKey(type)) continue;
        // The first declared of those Prism is given as JSON, as fillResponse keeps it.
        const given = `${status} ${prismWrites(doc, type, media.schema) ? type : 'application/json'}`;
        if (!types.has(given)) types.set(given, type);
      }
      responses[status] = raw;
    }
    declared.set(prismPath(index), types);
    paths[prismPath(index)] = { [prismMethod(op)]: { responses } };
  });
  const document: OpenApiDocument = {
    openapi: toolOpenApiVersion(copy.openapi),
    info: copy.info,
    servers: [{ url: '/' }],
    paths,
    components: copy.components,
  };
  return { document: fixSchemas(document), declared, unanswerable };
}

/**
 * Gives a response's headers and JSON bodies a valid example where they lack one, and renames the
 * media types Prism cannot write; returns why no value was found for a body, if none was.
 */
function fillResponse(doc: OpenApiDocument, response: Node, schemas: ContractSchemas): string | null {
  for (const header of Object.values((response.headers ?? {}) as Record<string, Node>)) {
    if (!header || typeof header !== 'object' || '$ref' in header) continue;
    // A header declared with `content`, which Prism does not write: the schema of its media type, as text.
    if (header.schema === undefined && header.content !== undefined) {
      header.schema = Object.values(header.content as Record<string, Node>)[0]?.schema ?? { type: 'string' };
      delete header.content;
    }
    // An object header, which Prism does not write either: its text.
    if (resolveRef<Node | undefined>(doc, header.schema)?.type === 'object') header.schema = { type: 'string' };
    if (header.example === undefined || !schemas.accepts(header.schema, header.example)) {
      const value = schemas.sample(header.schema);
      delete header.examples;
      if (value !== undefined) header.example = value;
    }
  }
  const content = (response.content ?? {}) as Record<string, Node>;
  const renamed: Record<string, Node> = {};
  let missing: string | null = null;
  for (const [type, media] of Object.entries(content)) {
    if (!isMediaTypeKey(type)) continue;
    const target = prismWrites(doc, type, media.schema) ? type : 'application/json';
    if (renamed[target]) continue;
    renamed[target] = media;
    if (!isJsonMediaType(target) || media.schema === undefined) continue;
    const examples = Object.values((media.examples ?? {}) as Record<string, Node>).map((e) => resolveRef<Node | undefined>(doc, e)?.value);
    const given = [media.example, ...examples].filter((v) => v !== undefined);
    if (given.length > 0 && given.every((v) => schemas.accepts(media.schema, v))) continue;
    const value = schemas.sample(media.schema, given);
    delete media.examples;
    if (value !== undefined) media.example = value;
    else {
      // The nearest value made: valid but where the schema takes none.
      const made = schemas.generate(media.schema, 1);
      if (made === NOTHING) delete media.example;
      else media.example = made;
      missing ??= made === NOTHING ? 'no value was made' : (schemas.errors(media.schema, made)[0] ?? 'no value was made');
    }
  }
  if (response.content) response.content = renamed;
  return missing;
}
