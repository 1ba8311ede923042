import { resolveRef, type OpenApiDocument } from '../../src/contract/load-spec.js';
import type { OperationInfo } from '../../src/contract/operations.js';
import { wireText } from './wire-text.js';

/** A request, relative to the base URL (`/pets/42`), and what to send with it. */
export interface ExampleRequest {
  path: string;
  init: RequestInit & { headers: Record<string, string> };
}

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  example?: unknown;
  schema?: unknown;
}

/** A parameter's value from the contract: its example, or else its schema's. */
function exampleOf(doc: OpenApiDocument, op: OperationInfo, p: Parameter): string {
  const value = p.example ?? resolveRef<{ example?: unknown } | undefined>(doc, p.schema)?.example;
  if (value === undefined) throw new Error(`${op.operationId}: parameter ${p.in}.${p.name} has no example to build a request from`);
  return wireText(value);
}

/**
 * A request the contract accepts for `op`, built from the contract alone: path parameters and
 * required query and header parameters from their examples, the body from the first named
 * example of the request body. Tests that are about every operation send it, so that an
 * operation added to openapi.yaml is covered without a fixture of its own.
 */
export function exampleRequest(doc: OpenApiDocument, op: OperationInfo): ExampleRequest {
  const pathItem = doc.paths[op.path] ?? {};
  const operation = pathItem[op.method] as { parameters?: unknown[]; requestBody?: unknown };
  const parameters = [...((pathItem.parameters as unknown[]) ?? []), ...(operation.parameters ?? [])].map((p) =>
    resolveRef<Parameter>(doc, p),
  );
  let path = op.path;
  const query = new URLSearchParams();
  const headers: Record<string, string> = {};
  for (const p of parameters) {
    if (p.in === 'path') path = path.replace(`{${p.name}}`, encodeURIComponent(exampleOf(doc, op, p)));
    else if (p.in === 'query' && p.required) query.set(p.name, exampleOf(doc, op, p));
    else if (p.in === 'header' && p.required) headers[p.name] = exampleOf(doc, op, p);
  }
  const init: ExampleRequest['init'] = { method: op.method.toUpperCase(), headers };
  if (operation.requestBody !== undefined) {
    const media = resolveRef<{ content?: Record<string, { examples?: Record<string, unknown>; example?: unknown }> }>(
      doc,
      operation.requestBody,
    ).content?.['application/json'];
    const named = Object.values(media?.examples ?? {})[0];
    const body = named === undefined ? media?.example : resolveRef<{ value?: unknown }>(doc, named).value;
    if (body === undefined) throw new Error(`${op.operationId}: the request body has no example to build a request from`);
    headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  const search = query.toString();
  return { path: search ? `${path}?${search}` : path, init };
}
