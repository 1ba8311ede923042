import { resolveRef, type OpenApiDocument } from '../../src/contract/load-spec.js';
import type { Operation, Parameter } from 'contract-kit';
import { wireText } from './wire-text.js';

/** A request, relative to the base URL (`/pets/42`), and what to send with it. */
export interface ExampleRequest {
  path: string;
  init: RequestInit & { headers: Record<string, string> };
}

/** A parameter's value from the contract: its example, or else its schema's. */
function exampleOf(doc: OpenApiDocument, op: Operation, p: Parameter): string {
  const value = p.examples[0] ?? resolveRef<{ example?: unknown } | undefined>(doc, p.schema)?.example;
  if (value === undefined) throw new Error(`${op.name}: parameter ${p.in}.${p.name} has no example to build a request from`);
  return wireText(value);
}

/** One input of a request set to another value (`undefined`: left out), by its name in a 400's details (`query.limit`, `body.name`). */
export interface InputChange {
  field: string;
  value: unknown;
}

/** `body` with the field at `path` (`['owner', 'name']`) set to `value`, or removed for undefined. */
function withField(body: unknown, path: string[], value: unknown): unknown {
  const copy = structuredClone(body) as Record<string, unknown>;
  let node = copy;
  for (const part of path.slice(0, -1)) node = (node[part] ??= {}) as Record<string, unknown>;
  if (value === undefined) delete node[path.at(-1)!];
  else node[path.at(-1)!] = value;
  return copy;
}

/**
 * A request the contract accepts for `op`, built from the contract alone: path parameters and
 * required query and header parameters from their examples, the body from the first named
 * example of the request body. Tests that are about every operation send it, so that an
 * operation added to openapi.yaml is covered without a fixture of its own. With `change`, one
 * input is set to another value (or left out) instead, to send what the contract refuses.
 */
export function exampleRequest(doc: OpenApiDocument, op: Operation, change?: InputChange): ExampleRequest {
  let path = op.path;
  const query = new URLSearchParams();
  const headers: Record<string, string> = {};
  for (const p of op.parameters) {
    // A 400 names a header in lower case, as HTTP reads its name in any case.
    const named = p.in === 'header' ? `header.${p.name.toLowerCase()}` : `${p.in}.${p.name}`;
    const changed = change !== undefined && (p.in === 'header' ? change.field.toLowerCase() : change.field) === named;
    if (!p.required && !changed) continue;
    const value = changed ? change.value : exampleOf(doc, op, p);
    if (value === undefined) continue;
    if (p.in === 'path') path = path.replace(`{${p.name}}`, encodeURIComponent(wireText(value)));
    else if (p.in === 'query') query.set(p.name, wireText(value));
    else if (p.in === 'header') headers[p.name] = wireText(value);
  }
  const init: ExampleRequest['init'] = { method: op.method.toUpperCase(), headers };
  if (op.requestBody !== null) {
    const media = op.requestBody.content['application/json'] as { examples?: Record<string, unknown>; example?: unknown } | undefined;
    const named = Object.values(media?.examples ?? {})[0];
    const body = named === undefined ? media?.example : resolveRef<{ value?: unknown }>(doc, named).value;
    if (body === undefined) throw new Error(`${op.name}: the request body has no example to build a request from`);
    headers['Content-Type'] = 'application/json';
    const [where, ...field] = change?.field.split('.') ?? [];
    init.body = JSON.stringify(where === 'body' ? withField(body, field, change!.value) : body);
  }
  const search = query.toString();
  return { path: search ? `${path}?${search}` : path, init };
}
