import { listOperations as kitOperations, type OpenApiDocument, type Operation } from 'contract-kit';
import { PathMatcher } from '../../contract/contract-paths.js';
import { operationInputs, type OperationInputs } from '../../contract/response-examples.js';
import { loadSpec, resolveRef } from '../../contract/load-spec.js';
import { basePathOf, deprecationHeaders, listOperations, type OperationInfo } from '../../contract/operations.js';

/** What the mock knows of one operation of the contract, worked out once. */
export interface MockOperation {
  info: OperationInfo;
  /** The operation as contract-kit reads it, as the server does (its wording of a refused field). */
  kit: Operation;
  /** Its responses by status, resolved. */
  responses: Record<string, Record<string, unknown>>;
  inputs: OperationInputs;
  /** The Deprecation, Sunset and Link headers of a deprecated operation, else null. */
  deprecation: Record<string, string> | null;
}

/** The contract as the mock reads it, once, at start. */
export interface MockContract {
  /** The contract's `info.title`. */
  title: string;
  doc: OpenApiDocument;
  /** The version segment every path is under (`/v1`). */
  basePath: string;
  /** Resolves a `$ref` of the contract. */
  resolve: (value: unknown) => Record<string, unknown>;
  /** The headers every answer carries, with the contract's examples: the rate-limit headers and the request id. */
  commonHeaders: Record<string, string>;
  /** Finds the operations of a path. */
  paths: PathMatcher;
  operations: Map<OperationInfo, MockOperation>;
  /** Every parameter name by its lower case, which is how Prism names them. */
  parameterNames: Map<string, string>;
}

/** Reads the contract at `specPath` into what the mock needs of it. */
export function readMockContract(specPath: string): MockContract {
  const doc = loadSpec(specPath);
  const basePath = basePathOf(doc);
  const resolve = (value: unknown) => resolveRef<Record<string, unknown>>(doc, value);
  const headerExample = (name: string): string => {
    const example = resolveRef<{ example?: unknown }>(doc, doc.components?.headers?.[name])?.example;
    if (typeof example !== 'string' && typeof example !== 'number') throw new Error(`components.headers.${name} has no example`);
    return String(example);
  };
  const operationList = listOperations(doc);
  const kit = new Map(kitOperations(doc).map((op) => [`${op.method} ${op.path}`, op]));
  const operations = new Map<OperationInfo, MockOperation>();
  const parameterNames = new Map<string, string>();
  for (const info of operationList) {
    const pathItem = doc.paths[info.path]!;
    const operation = pathItem[info.method] as Record<string, unknown>;
    const responses: Record<string, Record<string, unknown>> = {};
    for (const [status, raw] of Object.entries((operation.responses as Record<string, unknown>) ?? {})) responses[status] = resolve(raw);
    const inputs = operationInputs(pathItem, operation, resolve);
    for (const p of inputs.parameters) parameterNames.set(p.name.toLowerCase(), p.name);
    operations.set(info, {
      info,
      kit: kit.get(`${info.method} ${info.path}`)!,
      responses,
      inputs,
      deprecation: deprecationHeaders(info, basePath),
    });
  }
  return {
    title: doc.info.title,
    doc,
    basePath,
    resolve,
    commonHeaders: {
      'x-ratelimit-limit': headerExample('X-RateLimit-Limit'),
      'x-ratelimit-remaining': headerExample('X-RateLimit-Remaining'),
      'x-ratelimit-reset': headerExample('X-RateLimit-Reset'),
      'x-request-id': headerExample('X-Request-Id'),
    },
    paths: new PathMatcher(operationList, basePath),
    operations,
    parameterNames,
  };
}
